#!/usr/bin/env python3
"""Largest result of each kioku tool in a busy store (issue 9, "Every result is bounded").

Starts `kioku serve` (MCP over stdio) on a fresh KIOKU_HOME, fills it — 3,000 memories of
~600 characters, one memory edited 200 times, 300 relations, a session with 300 log entries,
50 blocks of 4 KB, 2,000 outcomes over 100 tools, handoffs and questions — then calls every
read tool (and workspace_dump) with its largest page size and prints the bytes of each
result (content + structuredContent, as JSON on the wire) against server.max_result_bytes.

  bench/result_sizes.py --kioku build/ci/bin/kioku --plugin-dir build/ci/plugins
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
        return msg["result"], size

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def text(i, n=600):
    words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(200)]
    return (f"memory {i}: " + " ".join(words))[:n]


def fill(s):
    for start in range(0, 3000, 100):
        batch = [{"text": text(i), "kind": "fact", "tags": [WORDS[i % len(WORDS)]]} for i in range(start, start + 100)]
        s.call("memory_remember", {"memories": batch})
    first, _ = s.call("memory_remember", {"text": "edited many times: " + text(9999, 500), "kind": "decision"})
    edited = first["structuredContent"]["results"][0]["id"]
    for k in range(200):
        s.call("memory_edit", {"id": edited, "text": f"edit {k}: " + text(k, 590)})
    for k in range(300):
        s.call("entity_relate", {"from": "postgres", "type": "depends_on", "to": f"service-{k}"})
    started, _ = s.call("session_start", {"title": "busy session"})
    session = started["structuredContent"].get("session_id") or started["structuredContent"].get("id")
    for k in range(300):
        s.call("session_log", {"session_id": session, "kind": "progress", "text": text(k, 500)})
    for k in range(50):
        s.call("block_write", {"key": f"notes-{k}", "content": text(k, 600) * 7})
    records = [{"tool": f"tool_{k % 100}", "outcome": "failure" if k % 3 else "success",
                "error": text(k, 300)} for k in range(2000)]
    for start in range(0, 2000, 100):
        s.call("feedback_record", {"records": records[start:start + 100]})
    for k in range(50):
        s.call("handoff_write", {"to": "bench", "title": f"handoff {k}", "body": text(k, 1000)})
        s.call("question_add", {"question": f"question {k}: " + text(k, 400)})
    return {"id": edited, "session_id": session, "entity": "postgres"}


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
    if tool["name"] == "session_timeline":
        args["session_id"] = known["session_id"]
    return args


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kioku", required=True)
    ap.add_argument("--plugin-dir", action="append", default=[])
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as home:
        s = Server(opts.kioku, opts.plugin_dir, home)
        known = fill(s)
        tools, _ = s.request("tools/list", {})
        rows = []
        for tool in tools["result"]["tools"]:
            read_only = tool.get("annotations", {}).get("readOnlyHint", False)
            if not read_only and tool["name"] != "workspace_dump":
                continue
            args = largest_args(tool, known)
            try:
                result, size = s.call(tool["name"], args)
                note = "isError: " + result["content"][0]["text"][:60] if result.get("isError") else ""
            except RuntimeError as e:
                size, note = 0, str(e)[:60]
            rows.append((tool["name"], size, json.dumps(args)[:50], note))
        s.close()
    print(f"{'tool':<20} {'bytes':>8}  args / note")
    for name, size, args, note in sorted(rows, key=lambda r: -r[1]):
        print(f"{name:<20} {size:>8}  {args} {note}")


if __name__ == "__main__":
    sys.exit(main())
