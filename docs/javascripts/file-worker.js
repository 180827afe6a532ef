// Search from disk: a page opened as a file:// URL may not start a Web Worker, and Material runs its search
// in one. There, run the worker's script in a hidden iframe instead, messages passed as a worker's would be
// (what the iframe-worker shim that Material's offline plugin fetches from unpkg.com does; ours works offline).
// Served over http(s) nothing changes.
if (location.protocol === "file:") {
  window.Worker = class FileWorker extends EventTarget {
    constructor(url) {
      super();
      const frame = document.createElement("iframe");
      frame.hidden = true;
      document.documentElement.appendChild(frame);
      this.scope = frame.contentWindow;
      this.pending = [];
      this.scope.postMessage = (data) => setTimeout(() => this.dispatchEvent(new MessageEvent("message", { data })));
      const script = this.scope.document.createElement("script");
      script.src = new URL(url, location.href).href;
      script.onload = () => {
        const pending = this.pending;
        this.pending = null;
        pending.forEach((data) => this.postMessage(data));
      };
      this.scope.document.head.appendChild(script);
    }

    postMessage(data) {
      if (this.pending) this.pending.push(data);
      else setTimeout(() => this.scope.dispatchEvent(new MessageEvent("message", { data })));
    }

    terminate() {
      this.scope.frameElement?.remove();
    }
  };
}
