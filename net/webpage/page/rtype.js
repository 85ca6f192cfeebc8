// The rtype browser page: checks the server's version, downloads the client's wasm with a
// progress bar, runs it (wasm_exec.js's Go), and shows the notices the browser needs: sound
// starts with a gesture, a page of another version than the server's, errors in clear.
// window.rtype is what the game and the tests read: frames (the game's Draw calls, set by the
// client), scene (the screen shown, set by the client), results (JSON of the last game's
// RESULTS on the results screen, set by the client), net (JSON of the session's network
// figures every 30 frames in a game, set by the client), timing (ms since navigation: fetched,
// started, firstFrame), versionCheck ("pending", "match", "mismatch", "unversioned": one side is a dev build, "error"), error.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const pageVersion = document.querySelector('meta[name="rtype-version"]').content;
  const rt = (window.rtype = { frames: 0, timing: {}, versionCheck: "pending", pageVersion: pageVersion, serverVersion: "" });

  function fail(msg) {
    const s = $("status");
    s.textContent = msg;
    s.className = "error";
    rt.error = msg;
    $("loading").hidden = false;
  }

  // The server's version (no cache) against the one this page was built from: at load, and
  // again when the tab comes back into view (the server may have been upgraded meanwhile).
  function checkVersion() {
    return fetch("version.json", { cache: "no-store" })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error("HTTP " + r.status))))
      .then((v) => {
        rt.serverVersion = String(v.version);
        const n = $("version");
        if (rt.serverVersion === pageVersion) {
          rt.versionCheck = "match";
          n.hidden = true;
          return;
        }
        if (rt.serverVersion === "dev" || pageVersion === "dev") {
          rt.versionCheck = "unversioned"; // buildinfo.Unversioned (go run): nothing to compare
          n.hidden = true;
          return;
        }
        rt.versionCheck = "mismatch";
        n.textContent = "This page is R-Type " + pageVersion + " but the server runs " + rt.serverVersion +
          ": the game may refuse to connect. Reload the page (Ctrl+Shift+R) to get the server's version.";
        n.hidden = false;
      })
      .catch((e) => {
        rt.versionCheck = "error";
        const n = $("version");
        n.textContent = "Could not ask the server for its version (" + e.message + ").";
        n.hidden = false;
      });
  }
  checkVersion();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") checkVersion();
  });

  // The button shows while the mouse moves and hides 3 s after (it covers the HUD's corner).
  let idleTimer = 0;
  function showButton() {
    $("fullscreen").classList.remove("idle");
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => $("fullscreen").classList.add("idle"), 3000);
  }
  window.addEventListener("pointermove", showButton);
  showButton();

  $("fullscreen").addEventListener("click", () => {
    const el = document.documentElement;
    if (el.requestFullscreen) el.requestFullscreen().catch(() => {});
  });

  // Browsers start audio only after a gesture; the game's audio context resumes on it.
  let heard = false;
  function gesture() {
    if (heard) return;
    heard = true;
    $("sound").hidden = true;
  }
  for (const ev of ["keydown", "pointerdown", "touchstart"]) window.addEventListener(ev, gesture, { capture: true });

  // The game's flags from the link: ?lobby=CODE joins a friend's lobby; only these are taken.
  const allowed = { name: true, lobby: true, stage: true, autoplay: false, start: false, mute: false, v: false };
  const argv = ["rtype-client"];
  const q = new URLSearchParams(location.search);
  for (const [k, v] of q) {
    if (!(k in allowed)) continue;
    if (allowed[k]) argv.push("-" + k + "=" + v);
    else if (v === "" || v === "1" || v === "true") argv.push("-" + k);
  }

  if (typeof WebAssembly !== "object" || typeof Go !== "function") {
    fail("This browser cannot run WebAssembly: R-Type needs a recent Chrome, Firefox, Safari or Edge.");
    return;
  }

  const wasm = body.dataset.wasm;
  const size = Number(body.dataset.wasmSize) || 0;
  async function download() {
    const r = await fetch(wasm);
    if (!r.ok) throw new Error("the server answered HTTP " + r.status + " for " + wasm);
    if (!r.body || !size) return r.arrayBuffer();
    // The body arrives decoded (Content-Encoding): count it against the raw size.
    const reader = r.body.getReader();
    const buf = new Uint8Array(size);
    let got = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (got + value.length > buf.length) throw new Error(wasm + " is larger than the page says");
      buf.set(value, got);
      got += value.length;
      $("fill").style.width = ((100 * got) / size).toFixed(1) + "%";
      $("status").textContent = "Loading the game… " + (got / 1048576).toFixed(1) + " of " + (size / 1048576).toFixed(1) + " MB";
    }
    if (got !== size) throw new Error("the download stopped at " + got + " of " + size + " bytes");
    return buf;
  }

  function watchFirstFrame() {
    if (rt.frames > 0) {
      rt.timing.firstFrame = performance.now();
      $("loading").hidden = true;
      if (!heard && !argv.includes("-mute")) $("sound").hidden = false;
      return;
    }
    requestAnimationFrame(watchFirstFrame);
  }

  download()
    .then(async (bytes) => {
      rt.timing.fetched = performance.now();
      $("status").textContent = "Starting…";
      const go = new Go();
      go.argv = argv;
      const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
      rt.timing.started = performance.now();
      requestAnimationFrame(watchFirstFrame);
      await go.run(instance);
      rt.exited = go.exitCode === undefined ? 0 : go.exitCode;
      fail(rt.exited === 0 ? "The game has ended. Reload the page to play again." :
        "The game stopped with an error (status " + rt.exited + "); the browser console has the details. Reload the page to try again.");
    })
    .catch((e) => fail("Could not start the game: " + e.message));
})();
