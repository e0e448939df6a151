"""Black-box check of manabi's MCP endpoint with the official Python MCP SDK.

Run by scripts/suites/mcp_python.sh against a live `manabi serve`; it needs the base
address, the `manabi` binary and the ledger database the server bills against (for
`manabi admin`). Over the SDK's streamable HTTP client it initializes (the handshake
revision and the 2026-07-28 discover lifecycle), lists the six tools, calls each and
checks the charge in the ledger, and checks the 401 gate, invalid arguments as
JSON-RPC errors (nothing charged) and a short balance as an `isError` result.
Exits non-zero on the first failed check.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import uuid
from typing import Any

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

TOOLS = [
    "search_learnables",
    "get_learnable",
    "get_related_learnables",
    "get_lesson",
    "get_journey",
    "list_worlds",
]
SEARCH_POINTS = 5
READ_POINTS = 1


class Check:
    """Counts passed checks; the first failure ends the run with its reason."""

    passed = 0

    @classmethod
    def that(cls, condition: bool, what: str, detail: Any = "") -> None:
        if not condition:
            print(f"FAIL: {what} {detail}", file=sys.stderr)
            sys.exit(1)
        cls.passed += 1


class Ledger:
    """`manabi admin` on the server's ledger."""

    def __init__(self, binary: str, database_url: str) -> None:
        self.binary = binary
        self.env = dict(os.environ, MANABI_DATABASE_URL=database_url, MANABI_LOG="warn")

    def admin(self, *args: str) -> dict[str, Any]:
        done = subprocess.run(
            [self.binary, "admin", *args], env=self.env, capture_output=True, text=True, check=False
        )
        Check.that(done.returncode == 0, f"admin {' '.join(args[:2])}", done.stderr)
        return json.loads(done.stdout)

    def funded_key(self, points: int) -> tuple[str, str]:
        account = self.admin("account", "create", "--email", f"py-{uuid.uuid4()}@example.com")
        account_id = account["account_id"]
        if points:
            self.admin(
                "topup", "--account", account_id, "--points", str(points),
                "--idempotency-key", f"py-topup-{account_id}",
            )
        key = self.admin("key", "create", "--account", account_id, "--name", "python-sdk")
        return account_id, key["api_key"]

    def balance(self, account_id: str) -> int:
        return int(self.admin("account", "show", "--account", account_id)["balance"])


def session_http(key: str | None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {key}"} if key else None
    return create_mcp_http_client(headers=headers)


async def check_the_gate(base: str) -> None:
    async with httpx2.AsyncClient() as http:
        response = await http.post(
            f"{base}/mcp",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Accept": "application/json, text/event-stream"},
        )
        Check.that(response.status_code == 401, "keyless POST /mcp is 401", response.status_code)
        challenge = response.headers.get("www-authenticate", "")
        metadata = f"{base}/.well-known/oauth-protected-resource/mcp"
        Check.that(f'resource_metadata="{metadata}"' in challenge, "challenge names metadata", challenge)
        Check.that(response.json()["error"]["code"] == "INVALID_API_KEY", "401 envelope", response.text)
        document = (await http.get(metadata)).json()
        Check.that(document["resource"] == f"{base}/mcp", "RFC 9728 resource", document)
        Check.that(document["bearer_methods_supported"] == ["header"], "bearer methods", document)
        Check.that(len(document["authorization_servers"]) > 0, "authorization servers", document)
        get = await http.get(f"{base}/mcp")
        Check.that(get.status_code == 405, "GET /mcp is 405", get.status_code)


def check_tools(tools: list[Any]) -> None:
    Check.that([tool.name for tool in tools] == TOOLS, "six tools in order", [t.name for t in tools])
    for tool in tools:
        hints = tool.annotations
        Check.that(hints is not None and hints.read_only_hint is True, f"{tool.name} read-only")
        Check.that(hints.open_world_hint is False, f"{tool.name} closed world")
        Check.that(hints.idempotent_hint is True, f"{tool.name} idempotent")
        Check.that(tool.output_schema is not None, f"{tool.name} output schema")
        Check.that(tool.input_schema.get("type") == "object", f"{tool.name} input schema")
    limit = tools[0].input_schema["properties"]["limit"]
    Check.that((limit["minimum"], limit["maximum"]) == (1, 20), "search limit bounds", limit)


# The REST operation each tool is billed as, in the invoice lines.
OPERATIONS = {
    "search_learnables": "searchLearnables",
    "get_learnable": "getLearnable",
    "get_related_learnables": "getRelatedLearnables",
    "get_lesson": "getLesson",
    "get_journey": "getJourney",
    "list_worlds": "listWorlds",
}

# Every billed call of the keyed session, in order: the invoice lines must be exactly these.
BILLED: list[str] = []


def check_billed(name: str, result: Any, points: int) -> int:
    data = result.structured_content
    Check.that(result.is_error is False, f"{name} succeeds", data)
    BILLED.append(OPERATIONS[name])
    Check.that(data["billing"]["points_charged"] == points, f"{name} billed {points}", data)
    Check.that(data["billing"]["currency"] == "JPY", f"{name} in JPY")
    text = result.content[0].text
    Check.that(json.loads(text) == data, f"{name} text copy equals structuredContent")
    return points


async def call_read(session: ClientSession, name: str, arguments: dict[str, Any]) -> int:
    """A read that must answer: the journey and lesson this run found are real."""
    result = await session.call_tool(name, arguments)
    Check.that(result.structured_content.get("id") == arguments["id"], f"{name} answers its id",
               result.structured_content)
    return check_billed(name, result, READ_POINTS)


async def call_each(session: ClientSession, ids: dict[str, str]) -> int:
    """Calls the six tools; returns the points they should have cost."""
    search = await session.call_tool("search_learnables", {"query": ids["query"], "limit": 5})
    total = check_billed("search_learnables", search, SEARCH_POINTS)
    results = search.structured_content["results"]
    first = results[0]["id"] if results else None
    Check.that(first == ids["first"], f"{ids['query']} ranks {ids['first']} first", results[:3])
    ids["learnable"] = results[0]["id"]
    learnable = await session.call_tool("get_learnable", {"id": ids["learnable"]})
    total += check_billed("get_learnable", learnable, READ_POINTS)
    related = await session.call_tool("get_related_learnables", {"id": ids["learnable"], "limit": 3})
    total += check_billed("get_related_learnables", related, READ_POINTS)
    total += await call_related_pages(session, ids["learnable"], related.structured_content)
    worlds = await session.call_tool("list_worlds", {})
    total += check_billed("list_worlds", worlds, READ_POINTS)
    journey = await first_journey(session, worlds.structured_content)
    if journey is not None:
        total += journey["billing"]["points_charged"]
        BILLED.append("getJourney")
        ids["journey"], ids["lesson"] = journey["id"], journey["start"]
        print(f"artifact journey {ids['journey']}, lesson {ids['lesson']}")
    total += await call_read(session, "get_journey", {"id": ids["journey"]})
    total += await call_read(session, "get_lesson", {"id": ids["lesson"], "render": "resolved"})
    return total


async def call_related_pages(session: ClientSession, entry: str, first: dict[str, Any]) -> int:
    """Up to three pages of one kind of the entry's related listing, by `kind` and
    `cursor`: only that kind, each entry once, each page billed. Returns their points."""
    kinds = list(first["totals_by_kind"])
    if not kinds:
        return 0
    arguments: dict[str, Any] = {"id": entry, "kind": [kinds[-1]], "limit": 1}
    seen: list[str] = []
    points = 0
    for _ in range(3):
        page = await session.call_tool("get_related_learnables", arguments)
        points += check_billed("get_related_learnables", page, READ_POINTS)
        data = page.structured_content
        kinds_listed = {r["kind"] for item in data["related"] for r in item["relationships"]}
        Check.that(kinds_listed == {kinds[-1]}, f"only {kinds[-1]} listed", data)
        seen += [item["learnable"]["id"] for item in data["related"]]
        if data["next_cursor"] is None:
            Check.that(len(seen) == data["total"], "the pages hold the total", data)
            break
        arguments["cursor"] = data["next_cursor"]
    Check.that(len(seen) == len(set(seen)), "each related entry listed once", seen)
    return points


async def first_journey(session: ClientSession, worlds: dict[str, Any]) -> dict[str, Any] | None:
    """The first journey of the first world (`journey-<world slug>-<n5..n1>-01`), if the
    artifact has one. Probes that find nothing are NOT_FOUND and free; the one found is
    billed, and its billing is counted by the caller."""
    for world in worlds.get("worlds", [])[:1]:
        slug = str(world["id"]).removeprefix("world-")
        for level in ("n5", "n4", "n3", "n2", "n1"):
            probe = await session.call_tool("get_journey", {"id": f"journey-{slug}-{level}-01"})
            if not probe.is_error:
                return probe.structured_content
    return None


async def expect_invalid_params(session: ClientSession, name: str, arguments: dict[str, Any]) -> None:
    try:
        await session.call_tool(name, arguments)
    except MCPError as error:
        Check.that(error.code == -32602, f"{name} {arguments} is -32602", error.message)
        return
    Check.that(False, f"{name} {arguments} should be refused")


async def check_keyed(base: str, ledger: Ledger, ids: dict[str, str]) -> None:
    account, key = ledger.funded_key(200)
    async with (
        session_http(key) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        initialized = await session.initialize()
        Check.that(initialized.server_info.name == "manabi", "server info", initialized.server_info)
        print(f"handshake revision {initialized.protocol_version}")
        tools = (await session.list_tools()).tools
        check_tools(tools)
        ids["tools"] = [tool.model_dump() for tool in tools]
        spent = await call_each(session, ids)
        Check.that(ledger.balance(account) == 200 - spent, f"ledger balance dropped by {spent}")
        await check_invoice_lines(base, key)
        await expect_invalid_params(session, "search_learnables", {"query": "a", "limit": 21})
        await expect_invalid_params(session, "get_lesson", {"id": ids["lesson"], "render": "html"})
        await expect_invalid_params(session, "no_such_tool", {})
        await expect_invalid_params(session, "get_related_learnables", {"id": ids["learnable"], "kind": ["nope"]})
        await expect_invalid_params(session, "get_related_learnables", {"id": ids["learnable"], "cursor": "nope"})
        Check.that(ledger.balance(account) == 200 - spent, "invalid calls charged nothing")
        missing = await session.call_tool("get_learnable", {"id": "no-such-entry"})
        Check.that(missing.is_error is True, "unknown id is isError")
        Check.that(missing.structured_content["code"] == "NOT_FOUND", "NOT_FOUND", missing.structured_content)
        Check.that(ledger.balance(account) == 200 - spent, "a miss charged nothing")
    await check_modern_lifecycle(base, ledger, key, account, 200 - spent, ids)


async def check_invoice_lines(base: str, key: str) -> None:
    """The invoice lines (projected from the ledger) are exactly the calls billed, in
    order, under their REST operation names, each recording the MCP transport."""
    lines: list[dict[str, Any]] = []
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as http:
        for _ in range(100):
            body = (await http.get(f"{base}/api/v1/account/charges?limit=100")).json()
            lines = body["data"]["charges"]
            if len(lines) >= len(BILLED):
                break
            await anyio.sleep(0.1)
    operations = [line["operation"] for line in lines]
    Check.that(operations == BILLED, "invoice lines are exactly the billed calls", operations)
    Check.that(all(line["transport"] == "mcp" for line in lines), "lines record transport mcp", lines)


async def check_modern_lifecycle(
    base: str, ledger: Ledger, key: str, account: str, before: int, ids: dict[str, Any]
) -> None:
    """The 2026-07-28 revision: no handshake, every request carries its own metadata."""
    async with (
        session_http(key) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        discovered = await session.discover()
        print(f"discover revisions {discovered.supported_versions}")
        Check.that("2026-07-28" in discovered.supported_versions, "2026-07-28 served", discovered)
        tools = [tool.model_dump() for tool in (await session.list_tools()).tools]
        Check.that(tools == ids["tools"], "2026-07-28 lists the same tools")
        worlds = await session.call_tool("list_worlds", {})
        Check.that(worlds.is_error is False, "list_worlds on 2026-07-28", worlds.structured_content)
        Check.that(ledger.balance(account) == before - READ_POINTS, "billed on 2026-07-28")


async def check_short_balance(base: str, ledger: Ledger, ids: dict[str, str]) -> None:
    account, key = ledger.funded_key(3)
    async with (
        session_http(key) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        refused = await session.call_tool("search_learnables", {"query": ids["query"]})
        error = refused.structured_content
        Check.that(refused.is_error is True, "short balance is isError", error)
        Check.that(error["code"] == "INSUFFICIENT_POINTS", "INSUFFICIENT_POINTS", error)
        Check.that((error["required"], error["balance"]) == (5, 3), "required and balance", error)
        Check.that(str(error["top_up_url"]).startswith("http"), "top_up_url", error)
        Check.that(ledger.balance(account) == 3, "nothing charged on refusal")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", required=True, help="server address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--manabi", required=True, help="the manabi binary (for admin commands)")
    parser.add_argument("--database-url", required=True, help="the ledger the server bills against")
    parser.add_argument("--ids", required=True, help="JSON: query, lesson id, journey id")
    args = parser.parse_args()
    ledger = Ledger(args.manabi, args.database_url)
    ids = json.loads(args.ids)
    await check_the_gate(args.base)
    await check_keyed(args.base, ledger, ids)
    await check_short_balance(args.base, ledger, ids)
    print(f"mcp python sdk: {Check.passed} checks passed")


if __name__ == "__main__":
    anyio.run(main)
