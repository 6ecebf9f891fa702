#!/usr/bin/env python3
"""Writes the extraction test set: transcripts in the on-disk formats of Claude Code and
Codex (shapes copied from shared/samples/transcripts) plus labels.json per split.

Specs (dev_spec.py, heldout_spec.py) list sessions as items; text carries inline labels:
  {{d:kind|text}}                  a durable human statement (kind preference|decision|fact|correction)
  {{d:kind:subject=value|text}}    … that sets a value
  {{x:class|text}}                 a look-alike that must not be captured
Every label records the physical line it lands on, so a verbatim copy in a compaction
summary is a different label from the human message it copies.

Run: python3 generate.py   (rewrites dev/ and heldout/; deterministic)
"""
import hashlib
import json
import os
import re
import sys

MARK = re.compile(r"\{\{([dx]):([^|]*)\|(.*?)\}\}", re.S)


def strip(text):
    labels = []
    out = []
    pos = 0
    for m in MARK.finditer(text):
        out.append(text[pos:m.start()])
        kind, meta, span = m.group(1), m.group(2), m.group(3)
        labels.append((kind, meta, span))
        out.append(span)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out), labels


class Writer:
    def __init__(self, name, sid, cwd, branch):
        self.name, self.sid, self.cwd, self.branch = name, sid, cwd, branch
        self.lines = []
        self.labels = {"durable": [], "lookalikes": []}
        self.n = 0
        self.t = 1_760_000_000

    def id(self, prefix=""):
        self.n += 1
        h = hashlib.sha1(f"{self.name}:{self.n}".encode()).hexdigest()
        return prefix + f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"

    def ts(self):
        self.t += 7
        import datetime
        return datetime.datetime.fromtimestamp(self.t, datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%S.") + f"{self.n % 1000:03d}Z"

    def label(self, labels, line_no, human):
        for kind, meta, span in labels:
            if kind == "d":
                if not human:
                    raise SystemExit(f"{self.name}: durable label outside a human message: {span}")
                parts = meta.split(":", 1)
                rec = {"line": line_no, "text": span, "kind": parts[0]}
                if len(parts) > 1:
                    subject, value = parts[1].split("=", 1)
                    rec["subject"], rec["value"] = subject, value
                self.labels["durable"].append(rec)
            else:
                self.labels["lookalikes"].append({"line": line_no, "text": span, "class": meta})

    def emit(self, obj, labels=(), human=False):
        self.lines.append(json.dumps(obj, ensure_ascii=False))
        self.label(labels, len(self.lines), human)


class Claude(Writer):
    version = "2.0.37"
    model = "claude-sonnet-4-5-20250929"

    def __init__(self, *a):
        super().__init__(*a)
        self.parent = None
        self.emit({"type": "summary", "summary": "Work on " + os.path.basename(self.cwd),
                   "leafUuid": self.id()})

    def env(self, typ, message, extra=None, sidechain=False):
        u = self.id()
        line = {"parentUuid": self.parent, "isSidechain": sidechain, "userType": "external",
                "cwd": self.cwd, "sessionId": self.sid, "version": self.version,
                "gitBranch": self.branch, "type": typ, "message": message, "uuid": u,
                "timestamp": self.ts()}
        if extra:
            line.update(extra)
        self.parent = u
        return line

    def assistant_block(self, block, stop=None, sidechain=False):
        msg = {"model": self.model, "id": "msg_" + self.id()[:24].replace("-", ""),
               "type": "message", "role": "assistant", "content": [block],
               "stop_reason": stop, "stop_sequence": None,
               "usage": {"input_tokens": 12, "output_tokens": 40,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 9000,
                         "service_tier": "standard"}}
        return self.env("assistant", msg, {"requestId": "req_" + self.id()[:20].replace("-", "")},
                        sidechain)

    def human(self, text, reminder=None):
        plain, labels = strip(text)
        if reminder is None:
            content = plain
        else:
            r_plain, r_labels = strip(reminder)
            labels = labels + r_labels
            content = [{"type": "text", "text": "<system-reminder>\n" + r_plain + "\n</system-reminder>"},
                       {"type": "text", "text": plain}]
        self.emit(self.env("user", {"role": "user", "content": content}), labels, human=True)

    def injected_user(self, text):
        # Harness text that reached a plain user line (CLAUDE.md contents, hook output).
        plain, labels = strip(text)
        self.emit(self.env("user", {"role": "user", "content": plain}), labels)

    def meta(self, text):
        plain, labels = strip(text)
        self.emit(self.env("user", {"role": "user", "content": plain}, {"isMeta": True}), labels)

    def assistant(self, text):
        plain, labels = strip(text)
        self.emit(self.assistant_block({"type": "text", "text": plain}, "end_turn"), labels)

    def thinking(self, text):
        plain, labels = strip(text)
        self.emit(self.assistant_block({"type": "thinking", "thinking": plain,
                                        "signature": "c2lnbmF0dXJl"}), labels)

    def tool(self, name, inp, output, error=False, sidechain=False):
        plain, labels = strip(output)
        call = "toolu_" + self.id()[:24].replace("-", "")
        self.emit(self.assistant_block({"type": "tool_use", "id": call, "name": name, "input": inp},
                                       "tool_use", sidechain))
        result = {"tool_use_id": call, "type": "tool_result", "content": plain}
        if error:
            result["is_error"] = True
        tur = ("Error: " + plain) if error else (
            {"stdout": plain, "stderr": "", "interrupted": False, "isImage": False}
            if name == "Bash" else
            {"type": "text", "file": {"filePath": inp.get("file_path", ""), "content": plain,
                                      "numLines": plain.count("\n") + 1, "startLine": 1,
                                      "totalLines": plain.count("\n") + 1}})
        self.emit(self.env("user", {"role": "user", "content": [result]}, {"toolUseResult": tur},
                           sidechain), labels)

    def compact(self, summary):
        plain, labels = strip(summary)
        last = self.parent
        self.parent = None
        self.emit(self.env("system", None, {"subtype": "compact_boundary",
                                            "content": "Conversation compacted",
                                            "logicalParentUuid": last,
                                            "compactMetadata": {"trigger": "auto", "preTokens": 155000},
                                            "level": "info", "isMeta": False}))
        self.lines[-1] = json.dumps({k: v for k, v in json.loads(self.lines[-1]).items() if k != "message"})
        text = ("This session is being continued from a previous conversation that ran out of "
                "context. The conversation is summarized below:\n" + plain)
        self.emit(self.env("user", {"role": "user", "content": text},
                           {"isCompactSummary": True, "isVisibleInTranscriptOnly": True}), labels)

    def side(self, prompt, answer):
        p_plain, p_labels = strip(prompt)
        a_plain, a_labels = strip(answer)
        call = "toolu_" + self.id()[:24].replace("-", "")
        self.emit(self.assistant_block({"type": "tool_use", "id": call, "name": "Task",
                                        "input": {"description": "Look around", "prompt": p_plain,
                                                  "subagent_type": "general-purpose"}}, "tool_use"))
        main_parent = self.parent
        self.parent = None
        self.emit(self.env("user", {"role": "user", "content": p_plain}, sidechain=True), p_labels)
        self.emit(self.assistant_block({"type": "text", "text": a_plain}, "end_turn", True), a_labels)
        self.parent = main_parent
        self.emit(self.env("user", {"role": "user", "content": [
            {"tool_use_id": call, "type": "tool_result", "content": [{"type": "text", "text": a_plain}]}]},
            {"toolUseResult": {"content": [{"type": "text", "text": a_plain}], "totalDurationMs": 9000,
                               "totalTokens": 4000, "totalToolUseCount": 2}}))


class Codex(Writer):
    def __init__(self, *a):
        super().__init__(*a)
        self.emit(self.line("session_meta", {
            "id": self.sid, "timestamp": self.ts(), "cwd": self.cwd, "originator": "codex_cli_rs",
            "cli_version": "0.63.0", "instructions": None, "source": "cli", "model_provider": "openai",
            "git": {"commit_hash": "0" * 40, "branch": self.branch,
                    "repository_url": "git@git.example.internal:team/" + os.path.basename(self.cwd) + ".git"}}))
        self.emit(self.line("response_item", {"type": "message", "role": "developer", "content": [
            {"type": "input_text", "text": "<permissions instructions>\nApproval policy: `on-request`.\n</permissions instructions>"}]}))

    def line(self, typ, payload):
        return {"timestamp": self.ts(), "type": typ, "payload": payload}

    def agents(self, text):
        plain, labels = strip(text)
        self.emit(self.line("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "# AGENTS.md instructions for " + self.cwd +
             "\n\n<INSTRUCTIONS>\n" + plain + "\n</INSTRUCTIONS>"}]}), labels)
        self.emit(self.line("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>" + self.cwd +
             "</cwd>\n  <shell>bash</shell>\n</environment_context>"}]}))

    def human(self, text, reminder=None):
        plain, labels = strip(text)
        self.emit(self.line("response_item", {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": plain}]}),
                  labels, human=True)
        self.emit(self.line("event_msg", {"type": "user_message", "message": plain, "images": []}))
        self.emit(self.line("turn_context", {"cwd": self.cwd, "approval_policy": "on-request",
                                             "sandbox_policy": {"type": "workspace-write"},
                                             "model": "gpt-5.1-codex", "effort": "medium",
                                             "summary": "auto"}))

    def assistant(self, text):
        plain, labels = strip(text)
        self.emit(self.line("event_msg", {"type": "agent_message", "message": plain}), labels)
        self.emit(self.line("response_item", {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": plain}]}))

    def thinking(self, text):
        plain, labels = strip(text)
        self.emit(self.line("response_item", {"type": "reasoning", "summary": [
            {"type": "summary_text", "text": plain}], "content": None, "encrypted_content": "gAAAA"}), labels)
        self.emit(self.line("event_msg", {"type": "agent_reasoning", "text": plain}))

    def tool(self, name, inp, output, error=False, sidechain=False):
        plain, labels = strip(output)
        call = "call_" + self.id()[:24].replace("-", "")
        cmd = inp.get("command", inp.get("file_path", ""))
        if name not in ("Bash",):
            cmd = "sed -n 1,200p " + cmd if "file_path" in inp else cmd
        self.emit(self.line("response_item", {"type": "function_call", "name": "shell_command",
                                              "arguments": json.dumps({"command": cmd, "workdir": self.cwd}),
                                              "call_id": call}))
        code = 1 if error else 0
        self.emit(self.line("response_item", {"type": "function_call_output", "call_id": call,
                                              "output": f"Exit code: {code}\nWall time: 0.4 seconds\nOutput:\n" + plain}),
                  labels)

    def compact(self, summary):
        plain, labels = strip(summary)
        self.emit(self.line("compacted", {"message": plain, "replacement_history": []}), labels)
        self.emit(self.line("event_msg", {"type": "context_compacted"}))

    def side(self, prompt, answer):
        raise SystemExit("codex has no sidechains")


def build(split, spec):
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), split)
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        if f.endswith(".jsonl"):
            os.remove(os.path.join(out_dir, f))
    labels = {}
    for i, s in enumerate(spec.SESSIONS):
        fmt, name, cwd, items = s["format"], s["name"], s["cwd"], s["items"]
        sid = hashlib.sha1(f"{split}:{name}".encode()).hexdigest()
        sid = f"{sid[:8]}-{sid[8:12]}-4{sid[13:16]}-a{sid[17:20]}-{sid[20:32]}"
        cls = Claude if fmt == "claude-code" else Codex
        w = cls(name, sid, cwd, s.get("branch", "main"))
        for item in items:
            op, *args = item
            getattr(w, op)(*args)
        fname = f"{i + 1:02d}-{name}.jsonl"
        with open(os.path.join(out_dir, fname), "w", encoding="utf-8") as fh:
            fh.write("\n".join(w.lines) + "\n")
        labels[fname] = w.labels
    with open(os.path.join(out_dir, "labels.json"), "w", encoding="utf-8") as fh:
        json.dump({"split": split, "files": labels}, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    d = sum(len(v["durable"]) for v in labels.values())
    x = sum(len(v["lookalikes"]) for v in labels.values())
    print(f"{split}: {len(labels)} files, {d} durable, {x} look-alikes")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import dev_spec
    import heldout_spec
    build("dev", dev_spec)
    build("heldout", heldout_spec)
