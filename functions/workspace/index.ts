// The workspace family: one file per tool; adding a tool = adding a file and a line here.
import type { Tool } from '../../src/tools/types.ts';
import { deleteFile } from './delete_file.ts';
import { listFiles } from './list_files.ts';
import { patchFile } from './patch_file.ts';
import { readFile } from './read_file.ts';
import { searchFiles } from './search_files.ts';
import { writeFile } from './write_file.ts';

export { deleteFile, listFiles, patchFile, readFile, searchFiles, writeFile };
export { normalisePath } from './paths.ts';

export const workspaceTools: Tool[] = [listFiles, readFile, writeFile, patchFile, deleteFile, searchFiles];
