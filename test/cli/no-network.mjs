// Preloaded (`node --import`) to prove a command runs offline: any network connection throws.
import net from "node:net";
const refuse = () => {
  throw new Error("network access attempted in an offline run");
};
net.Socket.prototype.connect = refuse;
globalThis.fetch = refuse;
