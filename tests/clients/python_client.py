#!/usr/bin/env python3
"""Drives a running gsmcp with the official Python MCP SDK: initialize,
tools/list, tools/call execute_code `3 + 4`, a compile + test run with progress
(compile_class_definition, compile_method, run_test_class), then DELETE (closing
the client).
With SDK 2.x and a server serving the Conformance toolset it also answers the
sampling request of test_sampling and reads a prompt and a resource.
Usage: python_client.py URL. Exits non-zero on any mismatch.
With GSMCP_TOKEN set it sends `Authorization: Bearer $GSMCP_TOKEN`; with GSMCP_CA
it trusts that certificate file for an https URL (both from the environment, so
neither shows in a process listing).
Run it with the venv install.sh creates: tests/clients/.deps/venv/bin/python."""

import asyncio
import json
import os
import ssl
import sys


# What the run checked beyond the basic calls, for the summary line.
EXTRAS = []


def fail(message):
    print(f"python_client: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


async def compile_and_test(client):
    """Defines a TestCase subclass, compiles two tests into it and runs them,
    counting the progress notifications of run_test_class."""
    steps = [
        ("compile_class_definition", {"className": "PythonClientProbe", "superclassName": "TestCase"}),
        ("compile_method", {"className": "PythonClientProbe", "source": "testSum\n\tself assert: 3 + 4 = 7", "category": "tests"}),
        ("compile_method", {"className": "PythonClientProbe", "source": "testConcat\n\tself assert: ('ab' , 'c') = 'abc'", "category": "tests"}),
    ]
    for name, args in steps:
        r = await client.call_tool(name, args)
        if getattr(r, "is_error", False):
            fail(f"{name}: {text_of(r)}")
    progress = []

    async def on_progress(value, total, message):
        progress.append(value)

    r = await client.call_tool("run_test_class", {"className": "PythonClientProbe"}, progress_callback=on_progress)
    summary = (getattr(r, "structured_content", None) or {}).get("summary", {})
    if getattr(r, "is_error", False) or summary.get("passed") != 2 or summary.get("run") != 2:
        fail(f"run_test_class: {text_of(r)!r} {summary!r}")
    if len(progress) < 2 or progress != sorted(progress):
        fail(f"run_test_class progress: {progress!r}")
    EXTRAS.append(f"compiled and ran 2 tests with {len(progress)} progress notifications")


def auth_headers():
    token = os.environ.get("GSMCP_TOKEN")
    return {"Authorization": f"Bearer {token}"} if token else None


def trust():
    ca = os.environ.get("GSMCP_CA")
    return ssl.create_default_context(cafile=ca) if ca else True


async def run(url):
    try:
        from mcp import Client  # 2.x
        import mcp.types as types

        sampled = []

        async def sample(context, params):
            sampled.append(params)
            return types.CreateMessageResult(
                role="assistant",
                model="python-client",
                content=types.TextContent(type="text", text="answer from the Python client"),
            )

        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        http = httpx2.AsyncClient(
            headers=auth_headers(),
            verify=trust(),
            timeout=httpx2.Timeout(30, read=300),
        )
        transport = streamable_http_client(url, http_client=http)
        async with http, Client(transport, mode="legacy", sampling_callback=sample) as client:
            tools = await client.list_tools()
            names = [t.name for t in tools.tools]
            result = await client.call_tool("execute_code", {"code": "3 + 4"})
            if "run_test_class" in names:
                await compile_and_test(client)
            if "test_sampling" in names:
                s = await client.call_tool("test_sampling", {"prompt": "hello"})
                if len(sampled) != 1 or "answer from the Python client" not in text_of(s):
                    fail(f"test_sampling: {len(sampled)} sampling requests, answer {text_of(s)!r}")
                p = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a1", "arg2": "b2"})
                if "a1" not in str(p.messages):
                    fail(f"prompt: {p!r}")
                r = await client.read_resource("test://static-text")
                if not getattr(r.contents[0], "text", ""):
                    fail(f"resource: {r!r}")
                EXTRAS.append("sampling, prompt and resource ok")
            return names, result, getattr(result, "is_error", None)
    except ImportError:
        from mcp import ClientSession  # 1.x
        from mcp.client.streamable_http import streamablehttp_client

        async with streamablehttp_client(url, headers=auth_headers()) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                names = [t.name for t in tools.tools]
                result = await session.call_tool("execute_code", {"code": "3 + 4"})
                return names, result, getattr(result, "isError", None)


def main():
    if len(sys.argv) != 2:
        print("usage: python_client.py URL", file=sys.stderr)
        sys.exit(2)
    try:
        names, result, is_error = asyncio.run(run(sys.argv[1]))
    except BaseException as e:  # the SDK raises exception groups
        causes = getattr(e, "exceptions", None)
        while causes:
            e = causes[0]
            causes = getattr(e, "exceptions", None)
        fail(f"{type(e).__name__}: {e}")
    if "execute_code" not in names:
        fail(f"tools/list lacks execute_code: {names}")
    if is_error:
        fail(f"execute_code failed: {text_of(result)}")
    text = text_of(result)
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if "7" not in text and "7" not in json.dumps(structured or {}):
        fail(f"execute_code 3 + 4 did not answer 7: {text!r} {structured!r}")
    extras = "".join(f"; {e}" for e in EXTRAS)
    print(f"python_client: ok ({len(names)} tools; 3 + 4 -> {text.strip()[:80]}{extras})")


if __name__ == "__main__":
    main()
