// The workspace family: one file per tool; adding a tool = adding a file and a line here.
import type { Tool } from '../../src/tools/types.ts';
import { listFiles } from './list_files.ts';
import { readFile } from './read_file.ts';
import { writeFile } from './write_file.ts';

export { listFiles, readFile, writeFile };

export const workspaceTools: Tool[] = [listFiles, readFile, writeFile];
