// Notebook stand-in for lib/trainsocket.js (put in its place by ../build.mjs): FIG 2's view
// speaks the same messages (config, scene, start, pause, step, reset → state, progress, done,
// error) to the kernel over the widget's comm instead of a WebSocket to the server. The kernel
// side is attnlab.widgets.training. The comm is open while the widget lives, so "open" comes at
// once and there is nothing to reconnect.

import PROTOCOL from "../../src/attnlab/widgets/protocol.json";
import { currentModel } from "./kernel.js";

const CHANNEL = PROTOCOL.channels.training; // the kernel reads the same file

/** Same contract as lib/trainsocket.js: returns {send(obj), connect(), close(), status()}. */
export function trainSocket({ onMessage, onStatus = () => {}, onOpen = () => {} }) {
  const model = currentModel();
  let status = "closed";
  const receive = (content) => {
    if (content?.channel === CHANNEL && status === "open") onMessage(content.message);
  };
  return {
    connect() {
      if (status === "open") return;
      model.on("msg:custom", receive);
      status = "open";
      onStatus("open", {});
      onOpen();
    },
    status: () => status,
    send(obj) {
      if (status === "open") model.send({ channel: CHANNEL, message: obj });
    },
    close() {
      model.off("msg:custom", receive);
      status = "closed";
      onStatus("closed", { code: 1000, reason: "view closed", intended: true });
    },
  };
}
