// Preloaded (node --import) into servers we did not write that listen on a port without a host, such
// as @modelcontextprotocol/server-everything (`app.listen(PORT)`): they bind 127.0.0.1 instead of every
// interface, so the suites never open a port beyond loopback.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const portOnly = typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]));
  if (portOnly && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
