#!/usr/bin/env python3
"""Largest result of each kioku tool in a busy store (issue 9, "Every result is bounded").

Starts `kioku serve` (MCP over stdio) on a fresh KIOKU_HOME, fills it — 3,000 memories of
~600 characters, one memory edited 200 times, 300 relations, a session with 300 log entries,
50 blocks of 4 KB, 2,000 outcomes over 100 tools, handoffs and questions — then calls every
read tool (and workspace_dump) with its largest page size and prints the bytes of each
result (content + structuredContent, as JSON on the wire) against server.max_result_bytes.

  bench/result_sizes.py --kioku build/ci/bin/kioku --plugin-dir build/ci/lib/kioku/plugins

Set KIOKU_CONFIG to a config enabling all five layers with `server.tools.profile: full`,
so every read tool is listed. The fill also writes 20 plans of 300 tasks, 3,000 procedures
of 20 steps (one of 100 steps of 4 KB), 400 file claims and four focus sections of 16 KB; a
fill call that fails stops the run. Write tools are measured by their largest answer during
the fill. `host cut` marks a result the host had to cut or refuse (server.max_result_bytes):
every tool should fit itself, so that column should stay empty.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

WORDS = ("postgres redis kafka deploy staging release auth session token cache queue worker "
         "migration schema index latency retry timeout flaky test build docker pnpm cmake").split()


class Server:
    def __init__(self, binary, plugin_dirs, home):
        env = dict(os.environ, KIOKU_HOME=home, KIOKU_AGENT_ID="bench", KIOKU_PROJECT_ROOT=home)
        args = [binary]
        for d in plugin_dirs:
            args += ["--plugin-dir", d]
        self.p = subprocess.Popen(args + ["serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
        self.next_id = 0
        self.largest = {}  # tool -> (bytes, args, note) of its largest answer
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "result-sizes", "version": "1"}})
        self.notify("notifications/initialized")

    def notify(self, method):
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()
        while True:
            raw = self.p.stdout.readline()
            if not raw:
                raise RuntimeError("kioku exited")
            msg = json.loads(raw)
            if msg.get("id") == self.next_id:
                return msg, len(raw)

    def call(self, name, args):
        msg, size = self.request("tools/call", {"name": name, "arguments": args})
        if "error" in msg:
            raise RuntimeError(f"{name}: {msg['error']['message']}")
        result = msg["result"]
        first = result["content"][0]["text"] if result.get("content") else ""
        cut = "host cut" if "[cut: result over" in first or "over this server's cap" in first else ""
        if size > self.largest.get(name, (0,))[0]:
            self.largest[name] = (size, json.dumps(args)[:50], cut or ("isError: " + first[:50] if result.get("isError") else ""))
        elif cut:
            self.largest[name] = (self.largest[name][0], self.largest[name][1], cut)
        return result, size

    def fill_call(self, name, args):
        """A call of the fill: an isError answer means the fill is wrong, so stop."""
        result, size = self.call(name, args)
        if result.get("isError"):
            raise RuntimeError(f"fill {name}: {result['content'][0]['text'][:200]}")
        return result, size

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def text(i, n=600):
    words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(200)]
    return (f"memory {i}: " + " ".join(words))[:n]


def fill(s):
    for start in range(0, 3000, 100):
        batch = [{"text": text(i), "kind": "fact", "tags": [WORDS[i % len(WORDS)]]} for i in range(start, start + 100)]
        s.fill_call("memory_remember", {"memories": batch})
    first, _ = s.fill_call("memory_remember", {"text": "edited many times: " + text(9999, 500), "kind": "decision"})
    edited = first["structuredContent"]["results"][0]["id"]
    for k in range(200):
        s.fill_call("memory_edit", {"id": edited, "text": f"edit {k}: " + text(k, 590)})
    for k in range(300):
        s.fill_call("entity_relate", {"from": "postgres", "type": "depends_on", "to": f"service-{k}"})
    started, _ = s.fill_call("session_start", {"title": "busy session"})
    session = started["structuredContent"].get("session_id") or started["structuredContent"].get("id")
    for k in range(300):
        s.fill_call("session_log", {"session_id": session, "type": "progress", "entry": text(k, 500)})
    for k in range(50):
        s.fill_call("block_write", {"key": f"notes-{k}", "content": text(k, 600) * 7})
    records = [{"tool": f"tool_{k % 100}", "outcome": "failure" if k % 3 else "success",
                "error": text(k, 300)} for k in range(2000)]
    for start in range(0, 2000, 100):
        s.fill_call("feedback_record", {"records": records[start:start + 100]})
    for k in range(50):
        s.fill_call("handoff_write", {"to_agent": "bench", "summary": f"handoff {k}: " + text(k, 1000),
                                      "open_items": [text(k + i, 200) for i in range(10)]})
        s.fill_call("question_add", {"question": f"question {k}: " + text(k, 400), "context": text(k, 1000)})
    plan = None
    for p in range(20):
        tasks = [{"title": f"task {k}: " + text(p * 300 + k, 150), "description": text(k, 400)} for k in range(300)]
        created, _ = s.fill_call("plan_create", {"title": f"plan {p}: " + text(p, 100), "goal": text(p, 400),
                                                 "tasks": tasks})
        plan = plan or created["structuredContent"]["plan_id"]
    for k in range(3000):
        steps = [{"text": text(k * 20 + i, 300), "command": "make deploy"} for i in range(20)]
        s.fill_call("procedure_save", {"name": f"deploy-{k}", "when": "deploy " + text(k, 200), "steps": steps})
    s.fill_call("procedure_save", {"name": "deploy-huge", "when": "deploy everything",
                                   "steps": [{"text": text(i, 2000), "command": text(i + 1, 1990)} for i in range(100)]})
    for start in range(0, 400, 20):  # 20 per call: a 200-path claim's own answer is over the cap
        s.fill_call("file_claim", {"paths": [f"src/module_{i}/" + "deep/" * 20 + f"file_{i}.cpp"
                                             for i in range(start, start + 20)], "intent": text(start, 400)})
    for section in ("active_task", "in_progress", "next_steps", "notes"):
        s.fill_call("focus_update", {"section": section, "content": (text(7, 600) * 28)[:16384]})
    return {"id": edited, "session_id": session, "entity": "postgres", "plan": plan,
            "key": "notes-1", "query": "postgres deploy staging"}


def largest_args(tool, known):
    schema = tool.get("inputSchema", {})
    props = schema.get("properties", {})
    args = {}
    for name, p in props.items():
        if name == "limit" and "maximum" in p:
            args[name] = p["maximum"]
        elif name in known and name in schema.get("required", []):
            args[name] = known[name]
    if tool["name"] == "entity_graph":
        args["entity"] = known["entity"]
    if tool["name"] == "plan_status":
        args.update(plan=known["plan"], limit=50)
    if tool["name"] in ("memory_recall", "session_recall", "procedure_find"):
        args["query"] = known["query"] if tool["name"] != "procedure_find" else "deploy"
    if tool["name"] in ("session_recall", "session_timeline"):
        args["project"] = "*"
    if tool["name"] == "question_list":
        args["status"] = "all"
    if tool["name"] == "procedure_find":
        args["limit"] = 50
    return args


# More calls of some tools (their largest answer counts): other modes of one tool.
EXTRA = [("procedure_find", {"name": "deploy-huge"}), ("procedure_find", {"limit": 50}),
         ("focus_get", {"section": "notes"}), ("memory_list", {"limit": 100}),
         ("block_read", {"key": "notes-1"})]


def writes_at_their_largest(s, known):
    """After the reads: every write tool once with its largest input (destructive last)."""
    def call(name, args):
        try:
            return s.call(name, args)[0].get("structuredContent") or {}
        except RuntimeError as e:
            s.largest.setdefault(name, (0, json.dumps(args)[:50], str(e)[:60]))
            return {}
    for start in range(0, 500, 100):
        call("memory_suggest", {"memories": [{"text": "inferred " + text(i, 590), "kind": "fact"}
                                             for i in range(start, start + 100)]})
    call("memory_review", {"limit": 50})
    call("memory_consolidate", {"limit": 100})
    call("plan_validate", {"plan": known["plan"]})
    call("plan_check", {"plan": known["plan"], "task": 1, "state": "done", "note": text(1, 2000)})
    big = call("handoff_write", {"to_agent": "bench", "summary": text(3, 600) * 27,
                                 "open_items": [text(i, 1000) for i in range(50)]})
    if big.get("handoff_id"):
        call("handoff_claim", {"handoff_id": big["handoff_id"]})
    asked = call("question_add", {"question": text(4, 600) * 27, "context": text(5, 600) * 27})
    if asked.get("question_id"):
        call("question_answer", {"question_id": asked["question_id"], "answer": text(6, 600) * 27})
    call("presence_ping", {"focus": text(8, 1000), "status": "editing"})
    call("workspace_claim", {"task": text(9, 2000)})
    call("workspace_release", {})
    call("memory_used", {"ids": [known["id"]]})
    call("memory_pin", {"id": known["id"]})
    call("entity_unrelate", {"from": "postgres", "type": "depends_on", "to": "service-1"})
    call("memory_maintain", {})
    call("session_summary_add", {"session_id": known["session_id"], "summary": text(10, 600) * 100})
    call("session_end", {"session_id": known["session_id"], "summary": text(11, 600) * 300})
    if known.get("transcripts"):
        call("session_ingest", {"path": known["transcripts"]})
    call("memory_forget", {"id": known["id"]})
    call("file_release", {"all": True})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kioku", required=True)
    ap.add_argument("--plugin-dir", action="append", default=[])
    ap.add_argument("--transcripts", default="", help="a folder of transcripts for session_ingest")
    ap.add_argument("--cap", type=int, default=49152, help="server.max_result_bytes of the config")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as home:
        s = Server(opts.kioku, opts.plugin_dir, home)
        known = fill(s)
        tools, _ = s.request("tools/list", {})
        listed = [t["name"] for t in tools["result"]["tools"]]
        calls = [(t["name"], largest_args(t, known)) for t in tools["result"]["tools"]
                 if t.get("annotations", {}).get("readOnlyHint", False) or t["name"] == "workspace_dump"]
        for name, args in calls + [c for c in EXTRA if c[0] in listed]:
            try:
                s.call(name, args)
            except RuntimeError as e:
                s.largest.setdefault(name, (0, json.dumps(args)[:50], str(e)[:60]))
        known["transcripts"] = opts.transcripts
        writes_at_their_largest(s, known)
        s.close()
    print(f"{'tool':<20} {'bytes':>8}  args / note   (JSON-RPC line; cap {opts.cap})")
    for name in listed:
        s.largest.setdefault(name, (0, "", "not called"))
    for name, (size, args, note) in sorted(s.largest.items(), key=lambda r: -r[1][0]):
        print(f"{name:<20} {size:>8}  {args} {note}")


if __name__ == "__main__":
    sys.exit(main())
