// The door's page: xterm.js on a WebSocket carrying telnet, as on any telnet line.
// The game is the door's; this only draws what it sends and sends back what is typed,
// answering the few telnet questions a terminal answers (terminal type, window size).
(function () {
    "use strict";

    const IAC = 255, DONT = 254, DO = 253, WONT = 252, WILL = 251, SB = 250, SE = 240;
    const BINARY = 0, ECHO = 1, SGA = 3, TTYPE = 24, NAWS = 31;
    const IS = 0, SEND = 1;
    const TERMINAL_TYPE = "xterm-256color";
    const OURS = new Set([BINARY, TTYPE, NAWS]);  // what we will do when asked
    const THEIRS = new Set([BINARY, ECHO, SGA]);  // what we let the door do
    const TOO_BIG = 1009;  // the WebSocket's close code for a message over the door's limit
    const REFUSED = 1008;  // and for a page the door does not take calls from, with a reason
    // The door's classic screen, and the least its narrow one takes: the font is the
    // largest at which the window holds the classic board (down to CLASSIC_FONT), else the
    // largest at which it holds the narrow one.
    const CLASSIC = { cols: 80, rows: 24 }, NARROW = { cols: 40, rows: 20 };
    const DEFAULT_FONT = 16, CLASSIC_FONT = 12, SMALLEST_FONT = 6, LARGEST_FONT = 24;
    // What the page says, in the board's language: the door writes it into the page.
    const WORDS = JSON.parse(document.getElementById("words").textContent);
    // A touch screen's keys: the label shown, and what the key sends.
    const TOUCH_KEYS = [
        ["Esc", "\x1b"], ["←", "\x1b[D"], ["↑", "\x1b[A"], ["↓", "\x1b[B"], ["→", "\x1b[C"],
        [WORDS.keys.space, " "], [WORDS.keys.enter, "\r"], ["V", "V"], ["S", "S"], ["D", "D"],
        ["1", "1"], ["2", "2"], ["3", "3"], ["4", "4"], ["F", "F"], ["U", "U"], ["?", "?"],
    ];

    // The board's black (xterm.js's ANSI black, on which the door draws every screen) is
    // the page's too: the space around the terminal is the board's own.
    const BOARD_BLACK = "#2e3436";
    const status = document.getElementById("status");
    const again = document.getElementById("again");
    const holder = document.getElementById("terminal");
    const keys = document.getElementById("keys");

    // xterm.js did not load (a blocked CDN, say): say so, and where else the door answers.
    if (window.Terminal === undefined || window.FitAddon === undefined) {
        const host = location.hostname || "localhost";
        const port = document.body.dataset.telnetPort;
        const link = document.getElementById("telnet");
        link.href = `telnet://${host}:${port}`;
        link.querySelector("code").textContent = `telnet ${host.replace(/^\[(.*)\]$/, "$1")} ${port}`;
        holder.hidden = true;
        document.getElementById("unloaded").hidden = false;
        status.textContent = WORDS.unloaded;
        document.body.dataset.state = "unloaded";
        document.title = WORDS.tab.unloaded;
        return;
    }
    const terminal = new Terminal({
        cols: CLASSIC.cols,
        rows: CLASSIC.rows,
        fontFamily: '"DejaVu Sans Mono", "Cascadia Mono", Consolas, "Liberation Mono", monospace',
        fontSize: DEFAULT_FONT,
        scrollback: 0,
        cursorBlink: true,
        theme: { background: BOARD_BLACK, black: BOARD_BLACK },
    });
    const fit = new FitAddon.FitAddon();
    terminal.loadAddon(fit);
    terminal.open(holder);
    window.door = { terminal: terminal };  // for the curious, and for the tests

    let socket = null;
    let state = "closed";
    const agreed = new Set();  // options in force, ours (+0) and theirs (+256)

    function say(text, cutOff) {
        status.textContent = text;
        again.hidden = !cutOff;
        document.body.dataset.state = state;
        document.title = WORDS.tab[state];
    }

    function send(bytes) {
        if (socket && socket.readyState === WebSocket.OPEN) {
            socket.send(bytes);
        }
    }

    function command(verb, option) {
        send(new Uint8Array([IAC, verb, option]));
    }

    function sendSize() {
        if (!agreed.has(NAWS)) {
            return;
        }
        const size = [terminal.cols >> 8, terminal.cols & 255, terminal.rows >> 8, terminal.rows & 255];
        const escaped = [];
        for (const byte of size) {
            escaped.push(byte);
            if (byte === IAC) {
                escaped.push(IAC);
            }
        }
        send(new Uint8Array([IAC, SB, NAWS, ...escaped, IAC, SE]));
    }

    function answer(verb, option) {
        if (verb === DO || verb === DONT) {
            const want = verb === DO && OURS.has(option);
            if (want !== agreed.has(option) || verb === DO && !want) {
                command(want ? WILL : WONT, option);
            }
            want ? agreed.add(option) : agreed.delete(option);
            if (want && option === NAWS) {
                sendSize();
            }
        } else {
            const key = option + 256;
            const want = verb === WILL && THEIRS.has(option);
            if (want !== agreed.has(key) || verb === WILL && !want) {
                command(want ? DO : DONT, option);
            }
            want ? agreed.add(key) : agreed.delete(key);
        }
    }

    function subnegotiation(bytes) {
        if (bytes[0] === TTYPE && bytes[1] === SEND) {
            const name = Array.from(TERMINAL_TYPE, (c) => c.charCodeAt(0));
            send(new Uint8Array([IAC, SB, TTYPE, IS, ...name, IAC, SE]));
        }
    }

    // Telnet's commands out of what the door sends; the rest is the screen.
    let mode = "data", verb = 0, sub = [];
    function received(bytes) {
        const screen = [];
        for (const byte of bytes) {
            if (mode === "data") {
                if (byte === IAC) { mode = "iac"; } else { screen.push(byte); }
            } else if (mode === "iac") {
                if (byte === IAC) { screen.push(IAC); mode = "data"; }
                else if (byte >= WILL && byte <= DONT) { verb = byte; mode = "option"; }
                else if (byte === SB) { sub = []; mode = "sb"; }
                else { mode = "data"; }
            } else if (mode === "option") {
                answer(verb, byte);
                mode = "data";
            } else if (mode === "sb") {
                if (byte === IAC) { mode = "sb-iac"; } else if (sub.length < 256) { sub.push(byte); }
            } else if (mode === "sb-iac") {
                if (byte === SE) { subnegotiation(sub); mode = "data"; }
                else { if (byte === IAC) { sub.push(IAC); } mode = "sb"; }
            }
        }
        if (screen.length) {
            terminal.write(new Uint8Array(screen));
        }
    }

    // What is typed, clicked or pasted, as bytes on the line (a 255 doubled, as telnet wants).
    const encoder = new TextEncoder();
    function typed(bytes) {
        const escaped = [];
        for (const byte of bytes) {
            escaped.push(byte);
            if (byte === IAC) {
                escaped.push(IAC);
            }
        }
        send(new Uint8Array(escaped));
    }
    terminal.onData((text) => typed(encoder.encode(text)));
    terminal.onBinary((text) => typed(Array.from(text, (c) => c.charCodeAt(0) & 255)));
    terminal.onResize(sendSize);

    // On a touch screen, a row of keys under the terminal for what its keyboard lacks. A
    // key is pressed on the pointer's down (not its click), and never takes the focus from
    // the terminal, so a phone's keyboard stays as it was.
    const touch = navigator.maxTouchPoints > 0 || window.matchMedia("(pointer: coarse)").matches;
    if (touch) {
        for (const [label, sends] of TOUCH_KEYS) {
            const button = document.createElement("button");
            button.type = "button";
            button.textContent = label;
            button.dataset.sends = sends;
            button.addEventListener("pointerdown", (event) => {
                event.preventDefault();
                typed(encoder.encode(sends));
            });
            keys.append(button);
        }
        keys.hidden = false;
    }

    // The terminal fills the window, in the largest font at which it holds the door's
    // classic board (no smaller than CLASSIC_FONT), else in the largest at which it holds
    // the narrow one; its size goes to the door (NAWS, by onResize), which draws for it.
    function holds(size, least) {
        terminal.options.fontSize = size;
        const proposed = fit.proposeDimensions();
        return proposed && proposed.cols >= least.cols && proposed.rows >= least.rows;
    }
    function largestFont(least, smallest, largest) {
        for (let size = largest; size >= smallest; size--) {
            if (holds(size, least)) {
                return size;
            }
        }
        return null;
    }
    function fitWindow() {
        if (!holder.clientWidth || !holder.clientHeight) {
            return;
        }
        terminal.options.fontSize = largestFont(CLASSIC, CLASSIC_FONT, DEFAULT_FONT)
            || largestFont(NARROW, SMALLEST_FONT, LARGEST_FONT)
            || SMALLEST_FONT;
        fit.fit();
    }
    let fitting = null;
    window.addEventListener("resize", () => {
        clearTimeout(fitting);
        fitting = setTimeout(fitWindow, 100);
    });

    function connect() {
        const scheme = location.protocol === "https:" ? "wss:" : "ws:";
        agreed.clear();
        mode = "data";
        state = "connecting";
        say(WORDS.connecting, false);
        socket = new WebSocket(`${scheme}//${location.host}/telnet`, ["binary"]);
        socket.binaryType = "arraybuffer";
        socket.onopen = () => {
            state = "connected";
            say(WORDS.connected, false);
            terminal.focus();
        };
        socket.onmessage = (event) => {
            if (typeof event.data === "string") {
                received(encoder.encode(event.data));
            } else {
                received(new Uint8Array(event.data));
            }
        };
        socket.onclose = (event) => {
            socket = null;
            const wasConnected = state === "connected";
            state = "closed";
            if (event.code === TOO_BIG) {
                say(WORDS.tooBig, true);
            } else if (event.code === REFUSED) {
                // The reason as the door gave it, in the board's language too.
                say(event.reason ? WORDS.refused.replace("{reason}", () => event.reason) : WORDS.refusedUnsaid, true);
            } else {
                say(wasConnected ? WORDS.ended : WORDS.unanswered, true);
            }
        };
    }

    again.addEventListener("click", () => {
        terminal.reset();
        connect();
    });
    fitWindow();
    connect();
})();
