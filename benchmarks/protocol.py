"""A Streamlit session spoken over its websocket, as Chromium speaks it, without a browser.

What a browser does, recorded from Chromium against Streamlit 1.67 (`python -m benchmarks.load
--validate` shows this client's messages match it):

- An HTTP GET (`/_stcore/health`) sets the `_streamlit_xsrf` cookie. The websocket
  `/_stcore/stream` is opened with that cookie, an `Origin` header, and `Sec-WebSocket-Protocol:
  streamlit, <the cookie's value>` (a third entry would be a session id to reconnect to); the
  server selects `streamlit`.
- The first `BackMsg` is `rerun_script` with no widget states, the page's url path as
  `page_name` (empty for the root), the link's query string and `context_info`.
- Every run is answered by `new_session`, `session_status_changed`, `page_config_changed`,
  `navigation` (the current page's script hash), deltas, `script_finished`. A run that calls
  `st.rerun()` finishes FINISHED_EARLY_FOR_RERUN and the next run follows on its own. A run
  that a callback narrows to fragments (a context step: ui.follows_context) sends only their
  deltas and finishes FINISHED_FRAGMENT_RUN_SUCCESSFULLY; the rest of the page stays as it was.
- A widget's id is `$$ID-<md5 of its type, key and identity arguments>-<key>`. A widget change
  reruns with the state of every widget on the page (each widget reports its value when drawn:
  the default, or the value the server set), the page's script hash, the query string with
  URL-bound widgets that differ from their defaults, and the hashes of the large messages the
  browser has cached. The server then sends a `ref_hash` in place of such a message.
- Option widgets carry the shown labels: the context select_slider's state is
  `string_array_value ["192K"]`, a multiselect's the labels its format_func made.
"""

from __future__ import annotations

import asyncio
import http.cookies
import re
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit

from streamlit.proto.BackMsg_pb2 import BackendOperationRequest, BackMsg
from streamlit.proto.ClientState_pb2 import ClientState, ContextInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin, Subprotocol

XSRF_COOKIE = "_streamlit_xsrf"
_WIDGET_ID = re.compile(r"^\$\$ID-[0-9a-f]{32}-(.*)$")
_FINAL = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
          ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
# Widgets with a state the browser reports when drawn; buttons report only a click, a download nothing.
WIDGETS = {"radio", "selectbox", "multiselect", "slider", "number_input", "text_input", "text_area",
           "checkbox", "file_uploader", "button", "download_button"}


class Dropped(Exception):
    """The server closed the websocket while the session was in use."""


@dataclass
class Widget:
    id: str
    key: str  # the user's key, "None" when it has none
    kind: str  # the element type: "slider", "multiselect", …
    proto: object  # the element's message as last drawn (options, default, query_param_key)


@dataclass
class Run:
    """One rerun as the client saw it, from the BackMsg sent to the final script_finished."""

    ms: float = 0.0
    types: list[str] = field(default_factory=list)  # what came, in order: a message's type, a delta's element
    drawn: dict[str, str] = field(default_factory=dict)  # delta path → the element last drawn there
    exceptions: list[str] = field(default_factory=list)  # the text of each exception element
    status: str = ""  # the final script_finished status
    refs: int = 0  # messages sent as a ref_hash to one this client had cached
    page_not_found: bool = False
    received: int = 0  # bytes


@dataclass
class _Cached:
    data: bytes
    run: int


@dataclass
class MessageCache:
    """The browser's ForwardMsg cache: keeps cacheable messages it saw within the last
    `max_age` finished runs, reports their hashes with each rerun and resolves `ref_hash`."""

    entries: dict[str, _Cached] = field(default_factory=dict)
    runs: int = 0

    def see(self, msg: ForwardMsg, data: bytes) -> None:
        if msg.WhichOneof("type") == "ref_hash" or not msg.metadata.cacheable or not msg.hash:
            return
        if msg.hash in self.entries:
            self.entries[msg.hash].run = self.runs
        else:
            self.entries[msg.hash] = _Cached(data, self.runs)

    def resolve(self, ref: ForwardMsg) -> ForwardMsg:
        entry = self.entries[ref.ref_hash]  # a miss is a protocol error: KeyError
        entry.run = self.runs
        msg = ForwardMsg.FromString(entry.data)
        msg.metadata.CopyFrom(ref.metadata)
        return msg

    def finish_run(self, max_age: int) -> None:
        self.runs += 1
        self.entries = {h: e for h, e in self.entries.items() if self.runs - e.run <= max_age}

    def hashes(self) -> list[str]:
        return list(self.entries)


def drawn_state(kind: str, w) -> WidgetState | None:
    """The state a browser reports for a widget when it is drawn: the value the server set,
    else the default. None for a widget that reports nothing until used (a button)."""
    s = WidgetState(id=w.id)
    if kind in ("radio", "selectbox"):
        if w.set_value:
            s.string_value = w.raw_value
        elif 0 <= w.default < len(w.options):
            s.string_value = w.options[w.default]
        else:
            return None
    elif kind == "multiselect":
        s.string_array_value.data[:] = w.raw_values if w.set_value else [w.options[i] for i in w.default]
    elif kind == "slider" and w.type == w.SELECT_SLIDER:
        s.string_array_value.data[:] = w.raw_value if w.set_value else [w.options[int(i)] for i in w.default]
    elif kind == "slider":
        s.double_array_value.data[:] = w.value if w.set_value else w.default
    elif kind == "number_input":
        value = w.value if w.set_value else w.default
        if w.data_type == w.INT:
            s.int_value = int(value)
        else:
            s.double_value = value
    elif kind in ("text_input", "text_area"):
        s.string_value = w.value if w.set_value else w.default
    elif kind == "checkbox":
        s.bool_value = w.value if w.set_value else w.default
    elif kind == "file_uploader":
        s.file_uploader_state_value.SetInParent()
    else:
        return None
    return s


def shown_value(state: WidgetState):
    """A widget state's value as a plain Python value (a list for an array)."""
    kind = state.WhichOneof("value")
    value = getattr(state, kind)
    return list(value.data) if hasattr(value, "data") else value


def fetch_cookies(url: str, timeout: float) -> dict[str, str]:
    """GET a URL and return the cookies it sets (the browser's first requests set the XSRF one)."""
    request = urllib.request.Request(url, headers={"Cache-Control": "no-cache"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=timeout) as response:
        jar = http.cookies.SimpleCookie()
        for header in response.headers.get_all("Set-Cookie") or []:
            jar.load(header)
        return {k: m.value for k, m in jar.items()}


class Session:
    """One reader's tab: open a page, change widgets, each change a rerun awaited to its
    script_finished. A dropped socket raises Dropped, a run slower than `timeout` TimeoutError."""

    def __init__(self, base_url: str, *, timeout: float = 60.0):
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.ws: ClientConnection | None = None
        self.cache = MessageCache()
        self.widgets: dict[str, Widget] = {}
        self.states: dict[str, WidgetState] = {}
        self.query = ""
        self.url = ""
        self.page_hash = ""
        self.max_age = 2
        self.session_id = ""
        self._seen: set[str] = set()
        self.transcript: list[tuple[str, bytes]] | None = None  # ("sent" | "received", frame) when kept

    async def open(self, path: str = "/", query: str = "") -> Run:
        """Connect as a browser tab opening `path?query` and wait for the page to be drawn."""
        cookies = await asyncio.to_thread(fetch_cookies, f"{self.base}/_stcore/health", self.timeout)
        split = urlsplit(self.base)
        self.ws = await connect(
            f"{'wss' if split.scheme == 'https' else 'ws'}://{split.netloc}{split.path}/_stcore/stream",
            origin=Origin(f"{split.scheme}://{split.netloc}"),
            subprotocols=[Subprotocol("streamlit"), Subprotocol(cookies.get(XSRF_COOKIE, ""))],
            additional_headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())},
            proxy=None, ping_interval=None, max_size=None, max_queue=1024, open_timeout=self.timeout)
        self.query = query
        self.url = f"{self.base}{path}" + (f"?{query}" if query else "")
        first = ClientState(query_string=query, page_name=path.strip("/"), context_info=self._context())
        first.widget_states.SetInParent()
        return await self._rerun(first)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    def widget(self, key: str, kind: str | None = None) -> Widget:
        """The widget drawn with this key (and element type) in the last run."""
        found = [w for w in self.widgets.values() if w.key == key and kind in (None, w.kind)]
        if len(found) != 1:
            raise LookupError(f"{len(found)} widgets with key {key!r} ({kind or 'any type'})")
        return found[0]

    def rerun_message(self, changed: WidgetState | None = None, *, trigger: WidgetState | None = None) -> BackMsg:
        """The BackMsg a browser sends when a widget changes (`changed`) or a button is
        clicked (`trigger`, reported for this rerun only)."""
        if changed is not None:
            self.states[changed.id] = changed
            self._bind_url(self.widgets[changed.id], changed)
        states = [*self.states.values(), *([trigger] if trigger else [])]
        client = ClientState(query_string=self.query, page_script_hash=self.page_hash,
                             cached_message_hashes=self.cache.hashes(), context_info=self._context())
        client.widget_states.widgets.extend(states)
        return BackMsg(rerun_script=client)

    async def send(self, msg: BackMsg) -> Run:
        return await self._rerun(msg.rerun_script)

    async def set(self, key: str, value, kind: str | None = None) -> Run:
        """Give a widget a new value (in its state's shape: a list for an array) and rerun."""
        w = self.widget(key, kind)
        state = WidgetState()
        state.CopyFrom(self.states[w.id])
        target = getattr(state, state.WhichOneof("value"))
        if hasattr(target, "data"):
            target.data[:] = value
        else:
            setattr(state, state.WhichOneof("value"), value)
        return await self.send(self.rerun_message(state))

    async def click(self, key: str = "None") -> Run:
        """Press the button with this key ("None": the page's one button without a key)."""
        w = self.widget(key, "button")
        return await self.send(self.rerun_message(trigger=WidgetState(id=w.id, trigger_value=True)))

    async def download_url(self, w: Widget) -> str:
        """A download button's file URL. One whose data is a callable is deferred: a click asks
        for it with a `backend_operation_request` and the server answers with the URL."""
        if not w.proto.deferred_file_id:
            return w.proto.url
        request = BackendOperationRequest(request_id=uuid.uuid4().hex, session_id=self.session_id)
        request.deferred_file.file_id = w.proto.deferred_file_id
        data = BackMsg(backend_operation_request=request).SerializeToString()
        if self.transcript is not None:
            self.transcript.append(("sent", data))
        try:
            await self.ws.send(data)
            async with asyncio.timeout(self.timeout):
                while True:
                    data = await self.ws.recv(decode=False)
                    msg = ForwardMsg.FromString(data)
                    answer = msg.backend_operation_response
                    if msg.WhichOneof("type") != "backend_operation_response":
                        self.take(data, Run())
                    elif answer.request_id == request.request_id and answer.error_msg:
                        raise RuntimeError(f"deferred download: {answer.error_msg}")
                    elif answer.request_id == request.request_id:
                        return answer.deferred_file.url
        except ConnectionClosed as e:
            raise Dropped(str(e)) from e

    def options(self, key: str, kind: str | None = None) -> list[str]:
        return list(self.widget(key, kind).proto.options)

    def value(self, key: str, kind: str | None = None):
        return shown_value(self.states[self.widget(key, kind).id])

    def _context(self) -> ContextInfo:
        return ContextInfo(timezone="UTC", timezone_offset=0, locale="en-US", url=self.url,
                           is_embedded=False, color_scheme="light")

    def _bind_url(self, w: Widget, state: WidgetState) -> None:
        """A URL-bound widget writes its value into the query string, or removes its key
        when the value is the default (what the browser does with `bind="query-params"`)."""
        key = getattr(w.proto, "query_param_key", "")
        if not key:
            return
        pairs = [(k, v) for k, v in parse_qsl(self.query, keep_blank_values=True) if k != key]
        value, default = shown_value(state), shown_value(drawn_state(w.kind, _unset(w.proto)))
        if value != default:
            pairs += [(key, v) for v in (value if isinstance(value, list) else [value])]
        self.query = urlencode(pairs)

    async def _rerun(self, client: ClientState) -> Run:
        t0 = time.perf_counter()
        data = BackMsg(rerun_script=client).SerializeToString()
        if self.transcript is not None:
            self.transcript.append(("sent", data))
        try:
            await self.ws.send(data)
            return await asyncio.wait_for(self._until_finished(t0), self.timeout)
        except ConnectionClosed as e:
            raise Dropped(str(e)) from e

    async def _until_finished(self, t0: float) -> Run:
        run = Run()
        while not self.take(await self.ws.recv(decode=False), run):
            pass
        run.ms = (time.perf_counter() - t0) * 1e3
        return run

    def take(self, data: bytes, run: Run) -> bool:
        """Apply one ForwardMsg as the browser does (cache, widgets, page, query string) and
        note it in `run`; True when it is the run's final script_finished."""
        run.received += len(data)
        if self.transcript is not None:
            self.transcript.append(("received", data))
        msg = ForwardMsg.FromString(data)
        self.cache.see(msg, data)
        if msg.WhichOneof("type") == "ref_hash":
            msg, run.refs = self.cache.resolve(msg), run.refs + 1
        kind = msg.WhichOneof("type")
        if not run.types and kind != "new_session":  # the previous run's last word
            return False
        if kind == "new_session":
            self._seen = set()
            self._new_session(msg.new_session)
        elif kind == "navigation" and msg.navigation.page_script_hash:
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "page_not_found":
            run.page_not_found = True
        elif kind == "delta":
            kind = run.drawn[".".join(map(str, msg.metadata.delta_path))] = self._delta(msg.delta, run)
        run.types.append(kind)
        if kind == "script_finished" and msg.script_finished in _FINAL:
            run.status = ForwardMsg.ScriptFinishedStatus.Name(msg.script_finished)
            self._finish(whole=msg.script_finished != ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)
            return True
        return False

    def _new_session(self, new) -> None:
        self.session_id = new.initialize.session_id or self.session_id
        self.max_age = new.config.max_cached_message_age or self.max_age
        self.page_hash = new.page_script_hash or self.page_hash

    def _delta(self, delta, run: Run) -> str:
        kind = delta.WhichOneof("type")
        if kind != "new_element":
            return kind
        element = delta.new_element
        kind = element.WhichOneof("type")
        proto = getattr(element, kind)
        if kind == "exception":
            run.exceptions.append(f"{proto.type}: {proto.message}")
        if kind in WIDGETS and proto.id:
            match = _WIDGET_ID.match(proto.id)
            key = match.group(1) if match else "None"
            self._seen.add(proto.id)
            known = proto.id in self.states
            self.widgets[proto.id] = Widget(proto.id, key, kind, proto)
            state = drawn_state(kind, proto)
            if state is not None and (not known or getattr(proto, "set_value", False)):
                self.states[proto.id] = state
        return kind

    def _finish(self, whole: bool) -> None:
        """After a finished run the browser forgets widgets that were not drawn in it; a
        fragment run (a context step) leaves the rest of the page alone."""
        self.cache.finish_run(self.max_age)
        if not whole:
            return
        self.widgets = {i: w for i, w in self.widgets.items() if i in self._seen}
        self.states = {i: s for i, s in self.states.items() if i in self._seen}


def _unset(proto):
    """A copy of a widget's message with the server-set value cleared: its default."""
    copy = type(proto)()
    copy.CopyFrom(proto)
    copy.set_value = False
    return copy
