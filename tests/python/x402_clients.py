"""Black-box check of manabi's x402 pay-per-call mirror (`/x402/...`) with the official
Python x402 SDK (PyPI `x402`, pinned in requirements.txt).

Run by scripts/suites/x402_clients.sh against a live `manabi serve` started with
MANABI_X402_PAY_TO and a stand-in facilitator (tests' `x402-facilitator`, whose
`GET /settlements` lists what it settled). With a throwaway key it:

  0. asks unpaid and checks the 402: the v2 terms in `PAYMENT-REQUIRED` and the v1 terms
     in the body both parse with the SDK's own models and name the right price;
  a. pays a search and a read with the SDK's httpx client (v2, `PAYMENT-SIGNATURE`);
  b. pays a search and a read the v1 way: the SDK's v1 scheme signs the body's terms and
     the payment goes as `X-PAYMENT`;
  c. replays the payment of (a) by hand (402, nothing settled) and offers a read's
     payment for a search (402, nothing settled);
  d. pays `search_learnables` and `get_learnable` over MCP (`/x402/mcp`) with the SDK's
     x402 MCP session on the `mcp` SDK's streamable HTTP client, and replays one;
  e. checks that the facilitator settled exactly the paid calls, each for its price.

Exits non-zero on the first failed check, naming it and what the server sent.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from datetime import timedelta
from typing import Any

import anyio
import httpx
import httpx2
from eth_account import Account
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from x402 import x402Client
from x402.http import x402HTTPClient
from x402.http.clients import x402HttpxClient
from x402.http.clients.httpx import x402AsyncTransport
from x402.http.utils import decode_payment_required_header, decode_payment_response_header
from x402.mcp import MCP_PAYMENT_META_KEY, MCP_PAYMENT_RESPONSE_META_KEY, x402MCPSession
from x402.mechanisms.evm.exact import register_exact_evm_client
from x402.schemas import PaymentRequired, PaymentRequiredV1, SettleResponse, parse_payment_required

V2_NETWORK = "eip155:84532"
V1_NETWORK = "base-sepolia"
USDC_BASE_SEPOLIA = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
# ceil(jpy * 10^6 / 150) atomic USDC at MANABI_X402_JPY_PER_USD=150.
SEARCH_AMOUNT = "33334"
READ_AMOUNT = "6667"
QUERY = "taberu"


class Check:
    """Counts passed checks; the first failure ends the run with its reason."""

    passed = 0

    @classmethod
    def that(cls, condition: bool, what: str, detail: Any = "") -> None:
        if not condition:
            print(f"FAIL: {what} {detail}", file=sys.stderr)
            sys.exit(1)
        cls.passed += 1


def b64json(text: str) -> Any:
    return json.loads(base64.b64decode(text))


def shown(response: httpx.Response) -> str:
    """A response as evidence: status, the x402 headers decoded, the body."""
    headers = {}
    for name in ("payment-required", "payment-response", "x-payment-response"):
        value = response.headers.get(name)
        if value is not None:
            try:
                headers[name] = b64json(value)
            except Exception:  # noqa: BLE001 - evidence, shown raw when undecodable
                headers[name] = value
    return f"status {response.status_code} headers {json.dumps(headers)} body {response.text[:2000]}"


class Facilitator:
    """The stand-in facilitator's record of settled payments."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    def settlements(self) -> list[dict[str, Any]]:
        response = httpx.get(f"{self.url}/settlements", timeout=10)
        Check.that(response.status_code == 200, "GET /settlements", response.text)
        return response.json()


class Run:
    def __init__(self, base: str, facilitator: Facilitator, pay_to: str | None) -> None:
        self.base = base.rstrip("/")
        self.facilitator = facilitator
        self.pay_to = pay_to
        self.account = Account.create()
        self.client = x402Client()
        register_exact_evm_client(self.client, self.account)
        self.http_client = x402HTTPClient(self.client)
        # What each paid call should have settled, in order: (amount, what).
        self.paid: list[tuple[str, str]] = []
        self.settled_before = len(facilitator.settlements())
        # Settle responses the SDK itself parsed (its on_payment_response hook only runs
        # when it could decode the server's PAYMENT-RESPONSE / X-PAYMENT-RESPONSE).
        self.sdk_settles: list[SettleResponse] = []
        self.client.on_payment_response(self._sdk_saw_settle)
        self.created: list[Any] = []
        self.client.on_after_payment_creation(lambda ctx: self.created.append(ctx.payment_payload))

    def _sdk_saw_settle(self, ctx: Any) -> None:
        if ctx.settle_response is not None:
            self.sdk_settles.append(ctx.settle_response)

    def url(self, path: str) -> str:
        return f"{self.base}/x402{path}"

    def settled_count(self) -> int:
        return len(self.facilitator.settlements()) - self.settled_before

    # ------------------------------------------------------------------ checks

    def check_requirements_v2(self, terms: PaymentRequired, amount: str, what: str) -> None:
        Check.that(terms.x402_version == 2, f"{what}: x402Version 2", terms)
        Check.that(len(terms.accepts) >= 1, f"{what}: accepts", terms)
        offer = terms.accepts[0]
        Check.that(offer.scheme == "exact", f"{what}: scheme exact", offer)
        Check.that(offer.network == V2_NETWORK, f"{what}: network {V2_NETWORK}", offer)
        Check.that(offer.amount == amount, f"{what}: amount {amount}", offer)
        Check.that(offer.asset.lower() == USDC_BASE_SEPOLIA.lower(), f"{what}: asset USDC", offer)
        if self.pay_to:
            Check.that(offer.pay_to.lower() == self.pay_to.lower(), f"{what}: payTo", offer)
        Check.that(offer.max_timeout_seconds > 0, f"{what}: maxTimeoutSeconds", offer)
        Check.that((offer.extra or {}).get("name") == "USDC", f"{what}: extra.name USDC", offer)
        Check.that((offer.extra or {}).get("version") == "2", f"{what}: extra.version 2", offer)
        Check.that(terms.resource is not None and bool(terms.resource.url), f"{what}: resource.url", terms)

    def check_requirements_v1(self, terms: PaymentRequiredV1, amount: str, what: str) -> None:
        Check.that(terms.x402_version == 1, f"{what}: x402Version 1", terms)
        Check.that(len(terms.accepts) >= 1, f"{what}: accepts", terms)
        offer = terms.accepts[0]
        Check.that(offer.scheme == "exact", f"{what}: v1 scheme exact", offer)
        Check.that(offer.network == V1_NETWORK, f"{what}: v1 network {V1_NETWORK}", offer)
        Check.that(offer.max_amount_required == amount, f"{what}: maxAmountRequired {amount}", offer)
        Check.that(offer.asset.lower() == USDC_BASE_SEPOLIA.lower(), f"{what}: v1 asset USDC", offer)
        if self.pay_to:
            Check.that(offer.pay_to.lower() == self.pay_to.lower(), f"{what}: v1 payTo", offer)
        Check.that(bool(offer.resource), f"{what}: v1 resource", offer)
        Check.that((offer.extra or {}).get("name") == "USDC", f"{what}: v1 extra.name", offer)

    def check_settle(self, value: str | None, what: str) -> SettleResponse:
        Check.that(value is not None, f"{what}: payment response header present")
        settle = decode_payment_response_header(value)  # the SDK's own decoder, strict
        Check.that(settle.success is True, f"{what}: settle success", settle)
        Check.that(bool(settle.transaction), f"{what}: settle transaction", settle)
        Check.that(bool(settle.network), f"{what}: settle network", settle)
        if settle.payer is not None:
            Check.that(settle.payer.lower() == self.account.address.lower(), f"{what}: payer", settle)
        return settle

    # ------------------------------------------------------------------ 0. the 402

    async def unpaid(self, path: str, amount: str) -> None:
        """An unpaid ask: 402 with the v2 terms in the header and the v1 terms in the body."""
        what = f"unpaid {path}"
        async with httpx.AsyncClient(timeout=30) as http:
            response = await http.get(self.url(path))
        Check.that(response.status_code == 402, f"{what} is 402", shown(response))
        header = response.headers.get("payment-required")
        Check.that(header is not None, f"{what}: PAYMENT-REQUIRED header", shown(response))
        terms = decode_payment_required_header(header)  # the SDK's decoder and model
        Check.that(isinstance(terms, PaymentRequired), f"{what}: header is v2", terms)
        self.check_requirements_v2(terms, amount, what)
        body = response.json()
        Check.that(body.get("ok") is False, f"{what}: ok false", body)
        Check.that(body.get("code") == "PAYMENT_REQUIRED", f"{what}: code", body)
        self.check_requirements_v1(PaymentRequiredV1.model_validate(body), amount, what)
        # What the SDK's HTTP client makes of the answer: v2 from the header first, v1 from
        # the body when there is no header.
        picked = self.http_client.get_payment_required_response(response.headers.get, body)
        Check.that(isinstance(picked, PaymentRequired), f"{what}: SDK prefers the v2 header")
        picked = self.http_client.get_payment_required_response(lambda _name: None, body)
        Check.that(isinstance(picked, PaymentRequiredV1), f"{what}: SDK reads the v1 body")
        Check.that(self.settled_count() == len(self.paid), f"{what} settles nothing",
                   self.facilitator.settlements())

    # ------------------------------------------------------------------ a. v2 httpx

    async def v2_httpx(self) -> dict[str, Any]:
        recorder = Recorder()
        transport = x402AsyncTransport(self.client, transport=recorder)
        async with httpx.AsyncClient(transport=transport, timeout=30) as http:
            before = len(self.sdk_settles)
            response = await http.get(self.url(f"/api/v1/learnables?query={QUERY}"))
            Check.that(response.status_code == 200, "v2 paid search is 200", shown(response) + recorder.shown())
            self.paid.append((SEARCH_AMOUNT, "v2 search"))
            statuses = [status for _, status in recorder.exchanges]
            Check.that(statuses == [402, 200], "v2 search: one 402 then the paid 200", statuses)
            signature = recorder.exchanges[-1][0].get("payment-signature")
            Check.that(signature is not None, "v2 search sent PAYMENT-SIGNATURE", recorder.exchanges[-1][0])
            payload = b64json(signature)
            Check.that(payload.get("x402Version") == 2, "v2 payment payload version", payload)
            Check.that(payload["accepted"]["amount"] == SEARCH_AMOUNT, "v2 payment amount", payload)
            body = response.json()
            Check.that(body.get("ok") is True, "v2 search envelope ok", body)
            data = body["data"]
            results = data.get("results") or []
            Check.that(len(results) > 0, f"v2 search finds {QUERY}", data)
            Check.that(isinstance(data.get("billing"), dict), "v2 search: billing inside data", data.keys())
            Check.that("sample" not in body, "a paid search is the full dataset, not the sample", body.keys())
            settle = self.check_settle(response.headers.get("payment-response"), "v2 search PAYMENT-RESPONSE")
            legacy = self.check_settle(response.headers.get("x-payment-response"), "v2 search X-PAYMENT-RESPONSE")
            Check.that(legacy.transaction == settle.transaction, "both response headers name one transaction")
            Check.that(len(self.sdk_settles) == before + 1, "the SDK parsed the search's payment response")
            first = results[0]["id"]
            print(f"v2 search: {len(results)} results, first {first}, tx {settle.transaction}")

        await self.unpaid(f"/api/v1/learnables/{first}", READ_AMOUNT)
        # The read with the SDK's convenience client (same transport underneath).
        async with x402HttpxClient(self.client, timeout=30) as http:
            before = len(self.sdk_settles)
            response = await http.get(self.url(f"/api/v1/learnables/{first}"))
            Check.that(response.status_code == 200, "v2 paid read is 200", shown(response))
            self.paid.append((READ_AMOUNT, "v2 read"))
            body = response.json()
            Check.that(body.get("ok") is True, "v2 read envelope ok", body)
            Check.that(body["data"].get("id") == first, "v2 read answers its id", body["data"])
            Check.that(isinstance(body.get("billing"), dict), "v2 read: billing beside data", body.keys())
            settle = self.check_settle(response.headers.get("payment-response"), "v2 read PAYMENT-RESPONSE")
            Check.that(len(self.sdk_settles) == before + 1, "the SDK parsed the read's payment response")
            print(f"v2 read: {first}, tx {settle.transaction}")
        Check.that(self.settled_count() == len(self.paid), "settled after v2", self.facilitator.settlements())
        return {"first": first, "signature": signature, "search_url": self.url(f"/api/v1/learnables?query={QUERY}")}

    # ------------------------------------------------------------------ b. v1

    async def v1_by_hand(self, first: str) -> None:
        async with httpx.AsyncClient(timeout=30) as http:
            for path, amount, what in (
                (f"/api/v1/learnables?query={QUERY}", SEARCH_AMOUNT, "v1 search"),
                (f"/api/v1/learnables/{first}", READ_AMOUNT, "v1 read"),
            ):
                asked = await http.get(self.url(path))
                Check.that(asked.status_code == 402, f"{what}: unpaid is 402", shown(asked))
                terms = PaymentRequiredV1.model_validate(asked.json())
                self.check_requirements_v1(terms, amount, what)
                payload = await self.client.create_payment_payload(terms)  # ExactEvmSchemeV1
                Check.that(payload.x402_version == 1, f"{what}: SDK built a v1 payload", payload)
                headers = self.http_client.encode_payment_signature_header(payload)
                Check.that(list(headers) == ["X-PAYMENT"], f"{what}: SDK sends X-PAYMENT", headers)
                response = await http.get(self.url(path), headers=headers)
                Check.that(response.status_code == 200, f"{what}: paid is 200", shown(response))
                self.paid.append((amount, what))
                body = response.json()
                Check.that(body.get("ok") is True, f"{what}: envelope ok", body)
                settle = self.check_settle(response.headers.get("x-payment-response"), f"{what} X-PAYMENT-RESPONSE")
                print(f"{what}: tx {settle.transaction}")
        Check.that(self.settled_count() == len(self.paid), "settled after v1", self.facilitator.settlements())

    # ------------------------------------------------------------------ c. refusals

    async def refusals(self, signature: str, search_url: str, first: str) -> None:
        before = self.settled_count()
        async with httpx.AsyncClient(timeout=30) as http:
            replay = await http.get(search_url, headers={"PAYMENT-SIGNATURE": signature})
            Check.that(replay.status_code == 402, "replayed v2 payment is 402", shown(replay))
            Check.that("results" not in replay.text, "a replay is served nothing", replay.text[:500])
            print(f"replay refused: {replay.json().get('error')}")
            Check.that(self.settled_count() == before, "a replay settles nothing", self.facilitator.settlements())

            # A fresh read payment (6667) offered for a search (33334).
            asked = await http.get(self.url(f"/api/v1/learnables/{first}"))
            terms = decode_payment_required_header(asked.headers["payment-required"])
            cheap = await self.client.create_payment_payload(terms)
            headers = self.http_client.encode_payment_signature_header(cheap)
            wrong = await http.get(search_url, headers=headers)
            Check.that(wrong.status_code == 402, "a read's payment does not buy a search", shown(wrong))
            Check.that(self.settled_count() == before, "an underpayment settles nothing", self.facilitator.settlements())

    # ------------------------------------------------------------------ d. MCP

    async def mcp(self) -> None:
        wire: list[str] = []

        async def log_request(request: httpx2.Request) -> None:
            try:
                content = request.content[:1500]
            except Exception:  # noqa: BLE001 - a streamed body is not shown
                content = b"<stream>"
            wire.append(f"> {request.method} {request.url} {content!r}")

        http = create_mcp_http_client()
        http.event_hooks = {"request": [log_request], "response": []}
        try:
            async with (
                http,
                streamable_http_client(self.url("/mcp"), http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = {tool.name for tool in (await session.list_tools()).tools}
                Check.that({"search_learnables", "get_learnable"} <= tools, "x402 MCP lists the tools", tools)
                Check.that(self.settled_count() == len(self.paid), "initialize and tools/list are free")

                # The unpaid call, as the server answers it.
                probe = await session.call_tool("search_learnables", {"query": QUERY, "limit": 5})
                Check.that(probe.is_error is True, "unpaid tools/call is isError", probe)
                terms = parse_payment_required(probe.structured_content or {})
                Check.that(isinstance(terms, PaymentRequired), "MCP structuredContent is v2 PaymentRequired",
                           probe.structured_content)
                self.check_requirements_v2(terms, SEARCH_AMOUNT, "MCP search_learnables")

                paying = x402MCPSession(Mcp2Session(session), self.client)
                created = len(self.created)
                search = await paying.call_tool("search_learnables", {"query": QUERY, "limit": 5})
                self.check_mcp_paid(search, "MCP search_learnables", wire)
                self.paid.append((SEARCH_AMOUNT, "MCP search"))
                data = search.raw_result.structuredContent
                first = data["results"][0]["id"]
                Check.that(isinstance(data.get("billing"), dict), "MCP search billing", data.keys())
                search_payment = self.created[created]

                learnable = await paying.call_tool("get_learnable", {"id": first})
                self.check_mcp_paid(learnable, "MCP get_learnable", wire)
                self.paid.append((READ_AMOUNT, "MCP read"))
                Check.that(learnable.raw_result.structuredContent.get("id") == first, "MCP get_learnable id")
                Check.that(self.settled_count() == len(self.paid), "settled after MCP", self.facilitator.settlements())

                # Replaying the search's payment: the terms again, nothing served or settled.
                replay = await session.call_tool(
                    "search_learnables", {"query": QUERY, "limit": 5},
                    meta={MCP_PAYMENT_META_KEY: search_payment.model_dump(by_alias=True, exclude_none=True)},
                )
                Check.that(replay.is_error is True, "MCP replay is isError", replay)
                Check.that(isinstance(parse_payment_required(replay.structured_content or {}), PaymentRequired),
                           "MCP replay answers the terms again", replay.structured_content)
                Check.that(self.settled_count() == len(self.paid), "an MCP replay settles nothing")
                print(f"MCP: search and get_learnable paid, first {first}")
        except BaseException as error:  # noqa: BLE001 - shown with the wire, then failed
            # A failed check inside the SDK's task groups arrives wrapped in exception groups.
            if not isinstance(error, SystemExit) and not leaves_exit(error):
                print("\n".join(wire[-6:]), file=sys.stderr)
                Check.that(False, "MCP over the x402 MCP client", repr(error))
            sys.exit(1)

    def check_mcp_paid(self, result: Any, what: str, wire: list[str]) -> None:
        raw = result.raw_result
        detail = f"result {raw!r} wire {wire[-2:]}"
        Check.that(result.payment_made is True, f"{what}: the SDK paid", detail)
        terms_again = raw.isError and isinstance(raw.structuredContent, dict) and "accepts" in raw.structuredContent
        Check.that(not terms_again, f"{what}: the paid retry (payment in params._meta[{MCP_PAYMENT_META_KEY!r}]) "
                   "was answered with the payment terms again, as if unpaid", detail)
        Check.that(result.is_error is False, f"{what}: paid call succeeds", detail)
        meta = raw.meta or {}
        Check.that(MCP_PAYMENT_RESPONSE_META_KEY in meta, f"{what}: _meta x402/payment-response", detail)
        Check.that(isinstance(result.payment_response, SettleResponse),
                   f"{what}: the SDK parsed the settle response", meta.get(MCP_PAYMENT_RESPONSE_META_KEY))
        settle = result.payment_response
        Check.that(settle.success is True and bool(settle.transaction), f"{what}: settled", settle)
        Check.that(json.loads(raw.content[0].text) == raw.structuredContent, f"{what}: text equals structured")

    # ------------------------------------------------------------------ e. the ledger of payments

    def settlements(self) -> None:
        settled = self.facilitator.settlements()[self.settled_before:]
        Check.that(len(settled) == len(self.paid), "one settlement per paid call",
                   f"paid {self.paid} settled {settled}")
        for (amount, what), entry in zip(self.paid, settled):
            Check.that(str(entry.get("value")) == amount, f"{what} settled {amount}", entry)
            Check.that(str(entry.get("payer", "")).lower() == self.account.address.lower(), f"{what} payer", entry)
        nonces = [entry.get("nonce") for entry in settled]
        Check.that(len(set(nonces)) == len(nonces), "every settlement its own nonce", nonces)


def leaves_exit(error: BaseException) -> bool:
    """Whether an exception group holds a SystemExit (a failed check) among its leaves."""
    if isinstance(error, SystemExit):
        return True
    if isinstance(error, BaseExceptionGroup):
        return any(leaves_exit(inner) for inner in error.exceptions)
    return False


class Recorder(httpx.AsyncBaseTransport):
    """The transport under the SDK's: records each request's headers and answer status."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.exchanges: list[tuple[dict[str, str], int]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        self.exchanges.append(({k.lower(): v for k, v in request.headers.items()}, response.status_code))
        return response

    def shown(self) -> str:
        return f" exchanges {[(sorted(h), s) for h, s in self.exchanges]}"

    async def aclose(self) -> None:
        await self.inner.aclose()


class Mcp2Result:
    """A `mcp` 2.x CallToolResult under the attribute names x402's MCP session reads
    (`isError`, `structuredContent`: the `mcp` 1.x names; 2.x has `is_error`,
    `structured_content`)."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.isError = result.is_error
        self.structuredContent = result.structured_content
        self.content = result.content
        self.meta = result.meta

    def __repr__(self) -> str:
        return repr(self.result)


class Mcp2Session:
    """A `mcp` 2.x ClientSession as x402 2.25's `x402MCPSession` calls it: it passes
    `read_timeout_seconds` as a timedelta (2.x takes seconds) and reads 1.x attribute
    names. Only the shapes are adapted; the payment logic is the SDK's."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def initialize(self) -> Any:
        return await self.session.initialize()

    async def list_tools(self) -> Any:
        return await self.session.list_tools()

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: timedelta | float | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Mcp2Result:
        if isinstance(read_timeout_seconds, timedelta):
            read_timeout_seconds = read_timeout_seconds.total_seconds()
        result = await self.session.call_tool(
            name, arguments, read_timeout_seconds=read_timeout_seconds, meta=meta
        )
        return Mcp2Result(result)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True, help="server address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--facilitator", required=True, help="the stand-in facilitator's address")
    parser.add_argument("--pay-to", help="the server's MANABI_X402_PAY_TO, checked in the terms")
    args = parser.parse_args()
    run = Run(args.base, Facilitator(args.facilitator), args.pay_to)
    print(f"payer {run.account.address}")
    await run.unpaid(f"/api/v1/learnables?query={QUERY}", SEARCH_AMOUNT)
    found = await run.v2_httpx()
    await run.v1_by_hand(found["first"])
    await run.refusals(found["signature"], found["search_url"], found["first"])
    await run.mcp()
    run.settlements()
    print(f"x402 python sdk: {Check.passed} checks passed, {len(run.paid)} calls paid and settled")


if __name__ == "__main__":
    anyio.run(main)
