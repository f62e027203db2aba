#!/usr/bin/env python3
"""Drives a running gsmcp with the official Python MCP SDK (2.x) in the
stateless era (MCP 2026-07-28), once pinned to that revision and once in the
SDK's auto mode (which probes server/discover first). Each run has two
clients, A and B, each with a session handle of its own: A runs code,
defines a TestCase subclass and two test methods and runs them (with
progress), B does not see A's uncommitted class, A commits, B sees it after
abort moves its view; A's next change is discarded by abort; both handles
are closed. A third client answers a tool that asks the user twice (multi
round-trip requests) through its elicitation callback. The server must keep a repository file (not :memory:) for the
isolation to mean anything.
Usage: python_stateless.py URL. Exits non-zero on any mismatch.
Run it with the venv install.sh creates: tests/clients/.deps/venv/bin/python."""

import asyncio
import os
import sys

from mcp import Client, types


def fail(message):
    print(f"python_stateless: FAIL: {message}", file=sys.stderr)
    os._exit(1)


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


async def tool(client, name, args, **kw):
    r = await client.call_tool(name, args, **kw)
    if r.is_error:
        fail(f"{name} {args!r}: {text_of(r)}")
    return r


async def flow(url, mode, cls):
    async with Client(url, mode=mode) as a, Client(url, mode=mode) as b:
        if a.protocol_version != "2026-07-28":
            fail(f"{mode}: negotiated {a.protocol_version!r}, not 2026-07-28")
        names = [t.name for t in (await a.list_tools()).tools]
        for needed in ("open_session", "close_session", "execute_code", "run_test_class", "commit", "abort"):
            if needed not in names:
                fail(f"{mode}: tools/list lacks {needed}: {names}")
        ha = (await tool(a, "open_session", {})).structured_content["session"]
        hb = (await tool(b, "open_session", {})).structured_content["session"]
        if ha == hb:
            fail("two clients got the same handle")
        if text_of(await tool(a, "execute_code", {"code": "3 + 4", "session": ha})) != "7":
            fail("execute_code 3 + 4")
        await tool(a, "compile_class_definition", {"className": cls, "superclassName": "TestCase", "session": ha})
        for source in ("testSum\n\tself assert: 3 + 4 = 7", "testConcat\n\tself assert: ('ab' , 'c') = 'abc'"):
            await tool(a, "compile_method", {"className": cls, "source": source, "category": "tests", "session": ha})
        progress = []

        async def on_progress(value, total, message):
            progress.append(value)

        r = await tool(a, "run_test_class", {"className": cls, "session": ha}, progress_callback=on_progress)
        summary = (r.structured_content or {}).get("summary", {})
        if summary.get("passed") != 2 or summary.get("run") != 2:
            fail(f"run_test_class: {summary!r}")
        if len(progress) < 2 or progress != sorted(progress):
            fail(f"run_test_class progress: {progress!r}")
        probe = f"UserGlobals includesKey: #{cls}"
        seen = lambda c, h: tool(c, "execute_code", {"code": probe, "session": h})
        if not text_of(await seen(b, hb)).startswith("false"):
            fail(f"B sees A's uncommitted class: {text_of(await seen(b, hb))!r}")
        await tool(a, "commit", {"session": ha})
        await tool(b, "abort", {"session": hb})
        if not text_of(await seen(b, hb)).startswith("true"):
            fail("B does not see A's class after A committed and B aborted")
        await tool(a, "execute_code", {"code": f"UserGlobals at: #{cls}Scratch put: 1", "session": ha})
        await tool(a, "abort", {"session": ha})
        left = text_of(await tool(a, "execute_code", {"code": f"UserGlobals includesKey: #{cls}Scratch", "session": ha}))
        if not left.startswith("false"):
            fail(f"abort kept the change: {left!r}")
        for client, handle in ((a, ha), (b, hb)):
            closed = await tool(client, "close_session", {"session": handle})
            if closed.structured_content.get("closed") is not True:
                fail(f"close_session: {text_of(closed)}")
        return len(names), len(progress)


async def rounds(url, mode):
    """A tool that asks the user twice (multi round-trip requests): the SDK
    answers each InputRequiredResult through its elicitation callback and
    sends the request again with the answers and the sealed state."""
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        field = "name" if "name" in params.message else "color"
        return types.ElicitResult(action="accept", content={field: {"name": "Ada", "color": "green"}[field]})

    async with Client(url, mode=mode, elicitation_callback=on_elicit) as c:
        r = await tool(c, "test_input_required_result_multi_round", {})
        if text_of(r) != "Ada's favourite colour is green." or len(asked) != 2:
            fail(f"{mode}: multi round-trip: {text_of(r)!r} after {asked!r}")
    return len(asked)


async def run(url):
    for mode, cls in (("2026-07-28", "PyStatelessPinned"), ("auto", "PyStatelessAuto")):
        tools, progress = await flow(url, mode, cls)
        asked = await rounds(url, mode)
        print(f"python_stateless ({mode}): ok ({tools} tools; two handles kept apart; "
              f"compiled and ran 2 tests with {progress} progress notifications; commit and abort; "
              f"a request answered in {asked + 1} rounds)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python_stateless.py URL", file=sys.stderr)
        sys.exit(2)
    asyncio.run(run(sys.argv[1]))
