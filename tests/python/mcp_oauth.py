"""End-to-end check of manabi's OAuth for MCP with the official Python MCP SDK's client.

Run by scripts/suites/mcp_oauth.sh against a live `manabi serve` whose sign-in links are
mailed to a stand-in SMTP server (tests/python/smtp_sink.py) keeping each message in
--maildir. Needs the base address, the mail directory, the `manabi` binary and the
ledger database the server bills against (for `manabi admin topup`).

1. Signs in to the developer portal as a browser would (the sign-in form with its
   double-submit CSRF token, the mailed one-time link, the confirmation form) with plain
   HTTP and a small browser-like cookie jar (it honours each cookie's Path; Secure cookies
   are sent over loopback http, as browsers treat loopback as a secure context), and
   grants the account 100 points.
2. Connects with `mcp.client.auth.OAuthClientProvider`: its 401 -> protected resource
   metadata -> authorization server metadata -> dynamic registration -> authorization
   (the redirect handler plays the person: opens the consent page with the portal session
   and presses Allow) -> token path, then initializes, lists the tools and calls a billed
   one; the access token is then marked expired so the SDK refreshes it.
3. Refusals with raw HTTP: a bogus bearer token, a request for another resource, a consent
   form without its CSRF token, an unregistered redirect URI, a code used twice or with
   the wrong verifier, a refresh token used twice, and Deny.
4. The connection the 401 of `/mcp` came on still answers the next request (the SDK asks
   for the metadata on it at once), even when the request's body arrived after its head.

Every HTTP exchange is recorded; on the first failed check the last exchanges are printed
(request, status, headers, body) so a mismatch can be reported exactly. Exits non-zero on
the first failed check.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import email
import email.policy
import hashlib
import json
import logging
import os
import re
import secrets
import subprocess
import sys
import time
import traceback
import uuid
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

EMAIL = "oauth@example.test"
SECOND_EMAIL = "oauth-return@example.test"
REDIRECT_URI = "http://127.0.0.1:9/callback"
CLIENT_NAME = "manabi oauth suite"
EVIL_RESOURCE = "https://evil.example/mcp"
TOOLS = [
    "search_learnables",
    "get_learnable",
    "get_related_learnables",
    "get_lesson",
    "get_journey",
    "list_worlds",
]
SEARCH_POINTS = 5
GRANT = 100
# The scope the server names (one, the same in the challenge, both metadata documents,
# the SDK's request and the grant); learned from the protected resource metadata.
SCOPE: list[str] = []


def scope() -> str:
    return SCOPE[0]
MCP_ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "mcp-oauth-raw", "version": "0"},
    },
}


# ---- checks and the exchange record ------------------------------------------------


@dataclass
class Exchange:
    who: str
    method: str
    url: str
    request_headers: dict[str, str]
    request_body: str
    status: int | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    response_body: str = ""


class Record:
    """Every HTTP exchange of the run, newest last, for the failure report."""

    exchanges: list[Exchange] = []

    @classmethod
    def hooks(cls, who: str) -> dict[str, list[Any]]:
        async def on_request(request: httpx2.Request) -> None:
            body = ""
            try:
                body = request.content.decode("utf-8", "replace")
            except Exception:  # a streamed body
                body = "<stream>"
            cls.exchanges.append(
                Exchange(who, request.method, str(request.url), dict(request.headers), body[:2000])
            )
            request.extensions["manabi_exchange"] = cls.exchanges[-1]

        async def on_response(response: httpx2.Response) -> None:
            exchange = response.request.extensions.get("manabi_exchange")
            if exchange is None:
                return
            exchange.status = response.status_code
            exchange.response_headers = list(response.headers.multi_items())
            kind = response.headers.get("content-type", "")
            # An SSE stream of /mcp is left to its reader; everything else is read here.
            if "text/event-stream" not in kind:
                await response.aread()
                exchange.response_body = response.text[:3000]

        return {"request": [on_request], "response": [on_response]}

    @classmethod
    def dump(cls, last: int = 8) -> None:
        print(f"--- the last {last} HTTP exchanges ---", file=sys.stderr)
        for exchange in cls.exchanges[-last:]:
            print(f"[{exchange.who}] {exchange.method} {exchange.url}", file=sys.stderr)
            for name, value in exchange.request_headers.items():
                print(f"    > {name}: {value}", file=sys.stderr)
            if exchange.request_body:
                print(f"    > body: {exchange.request_body}", file=sys.stderr)
            print(f"    < status {exchange.status}", file=sys.stderr)
            for name, value in exchange.response_headers:
                print(f"    < {name}: {value}", file=sys.stderr)
            if exchange.response_body:
                print(f"    < body: {exchange.response_body}", file=sys.stderr)


class Check:
    """Counts passed checks; the first failure ends the run with its reason and the record."""

    passed = 0

    @classmethod
    def that(cls, condition: bool, what: str, detail: Any = "") -> None:
        if not condition:
            fail(f"{what} {detail}")
        cls.passed += 1


def fail(reason: str) -> None:
    print(f"FAIL: {reason}", file=sys.stderr)
    print(f"({Check.passed} checks passed before this one)", file=sys.stderr)
    Record.dump()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1)  # also out of the SDK's task groups, at once


# ---- HTML forms --------------------------------------------------------------------


@dataclass
class Form:
    action: str
    method: str
    fields: dict[str, str]
    buttons: list[tuple[str, str, str]]  # (name, value, label)


class Forms(HTMLParser):
    """The forms of a page (their inputs and buttons) and its visible text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self.text: list[str] = []
        self._button: list[str] | None = None
        self._button_attrs: dict[str, str] = {}
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.forms.append(Form(a.get("action", ""), a.get("method", "get").lower(), {}, []))
        elif tag == "input" and self.forms and a.get("name"):
            if a.get("type", "text") not in ("submit", "button", "checkbox", "radio"):
                self.forms[-1].fields[a["name"]] = a.get("value", "")
        elif tag == "button" and self.forms:
            self._button, self._button_attrs = [], a

    def handle_endtag(self, tag: str) -> None:
        if tag == "button" and self._button is not None:
            label = " ".join("".join(self._button).split())
            self.forms[-1].buttons.append((self._button_attrs.get("name", ""), self._button_attrs.get("value", ""), label))
            self._button = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._button is not None:
            self._button.append(data)

    def page_text(self) -> str:
        return " ".join(" ".join(self.text).split())

    def form(self, action_path: str) -> Form | None:
        for form in self.forms:
            if urlsplit(form.action).path == action_path:
                return form
        return None


# ---- a browser: cookies by RFC 6265 path-match ------------------------------------


def path_matches(cookie_path: str, request_path: str) -> bool:
    if request_path == cookie_path:
        return True
    if request_path.startswith(cookie_path):
        return cookie_path.endswith("/") or request_path[len(cookie_path)] == "/"
    return False


class Browser:
    """Plain HTTP with a cookie jar that sends a cookie only where a browser would (its
    Path), never follows redirects by itself, and records every exchange."""

    def __init__(self, base: str, who: str) -> None:
        self.base = base
        self.who = who
        self.jar: dict[str, tuple[str, str]] = {}  # name -> (value, path)
        self.http = httpx2.AsyncClient(timeout=30, follow_redirects=False, event_hooks=Record.hooks(who))
        self.read_mail: set[str] = set()

    async def close(self) -> None:
        await self.http.aclose()

    def cookie_path(self, name: str) -> str | None:
        return self.jar[name][1] if name in self.jar else None

    async def request(self, method: str, url: str, data: dict[str, str] | None = None) -> httpx2.Response:
        url = urljoin(self.base + "/", url)
        path = urlsplit(url).path or "/"
        cookies = "; ".join(f"{name}={value}" for name, (value, cpath) in self.jar.items() if path_matches(cpath, path))
        headers = {"Cookie": cookies} if cookies else {}
        if method == "GET":
            response = await self.http.get(url, headers=headers)
        else:
            response = await self.http.post(url, data=data, headers=headers)
        for line in response.headers.get_list("set-cookie"):
            self.store(line, path)
        return response

    def store(self, line: str, request_path: str) -> None:
        parts = [part.strip() for part in line.split(";")]
        name, _, value = parts[0].partition("=")
        attributes = {}
        for part in parts[1:]:
            key, _, val = part.partition("=")
            attributes[key.lower()] = val
        default_path = request_path.rsplit("/", 1)[0] or "/"
        path = attributes.get("path") or default_path
        max_age = attributes.get("max-age")
        if max_age is not None and max_age.lstrip("-").isdigit() and int(max_age) <= 0:
            self.jar.pop(name, None)
        else:
            self.jar[name] = (value, path)

    async def wait_for_link(self, maildir: Path, address: str) -> str:
        """The sign-in link of the first unread mail to `address`."""
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            for file in sorted(maildir.glob("*.eml")):
                if file.name in self.read_mail:
                    continue
                message = email.message_from_bytes(file.read_bytes(), policy=email.policy.default)
                if address.lower() not in str(message.get("X-Sink-Rcpt-To", "")).lower():
                    continue
                self.read_mail.add(file.name)
                Check.that("sign-in" in str(message.get("Subject", "")).lower(), "the mail speaks of a sign-in link",
                           message.get("Subject"))
                body = message.get_body(preferencelist=("plain",))
                text = body.get_content() if body is not None else ""
                match = re.search(r"https?://\S+/developers/sign-in/[0-9a-f]{64}\b", text)
                Check.that(match is not None, "the mail holds a sign-in link", text)
                return match.group(0)
            await anyio.sleep(0.1)
        fail(f"no mail to {address} in {maildir} within 15 s: {sorted(p.name for p in maildir.glob('*'))}")
        raise AssertionError  # unreachable

    async def submit(self, form: Form, extra: dict[str, str] | None = None) -> httpx2.Response:
        Check.that(form.method == "post", f"the form to {form.action} is a POST", form.method)
        return await self.request("POST", form.action, {**form.fields, **(extra or {})})

    async def sign_in_from(self, page: httpx2.Response, address: str, maildir: Path, label: str) -> httpx2.Response:
        """From a page showing the sign-in form: asks for a link for `address`, opens the
        mailed link and confirms it. Returns the confirmation's response (a redirect)."""
        form = Forms(page.text).form("/developers/sign-in")
        Check.that(form is not None, f"{label}: the page has the sign-in form", page.text[:500])
        Check.that(bool(form.fields.get("csrf")), f"{label}: the sign-in form carries a CSRF token", form.fields)
        Check.that("manabi_csrf" in self.jar, f"{label}: the page set the CSRF cookie", page.headers)
        sent = await self.submit(form, {"email": address})
        Check.that(sent.status_code == 200, f"{label}: asking for a link is 200", sent.status_code)
        link = await self.wait_for_link(maildir, address)
        Check.that(link.startswith(self.base + "/developers/sign-in/"), f"{label}: the link points at the server", link)
        confirm_page = await self.request("GET", link)
        Check.that(confirm_page.status_code == 200, f"{label}: the link's page is 200", confirm_page.status_code)
        confirm = Forms(confirm_page.text).form("/developers/sign-in/confirm")
        Check.that(confirm is not None and bool(confirm.fields.get("token")), f"{label}: the link page's form",
                   confirm_page.text[:500])
        confirmed = await self.submit(confirm)
        Check.that(confirmed.status_code in (302, 303), f"{label}: the confirmation redirects", confirmed.status_code)
        Check.that("manabi_session" in self.jar, f"{label}: the confirmation sets manabi_session",
                   confirmed.headers.get_list("set-cookie"))
        return confirmed


# ---- the ledger --------------------------------------------------------------------


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

    def grant(self, account: str, points: int) -> None:
        self.admin("topup", "--account", account, "--points", str(points),
                   "--idempotency-key", f"oauth-grant-{uuid.uuid4()}", "--kind", "grant")

    def balance(self, account: str) -> int:
        return int(self.admin("account", "show", "--account", account)["balance"])


# ---- the SDK's side ----------------------------------------------------------------


class MemoryStorage:
    """The SDK's TokenStorage, in memory; keeps every token set stored, in order."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.history: list[OAuthToken] = []

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.history.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def query_of(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


class Person:
    """The person at the browser: the SDK's redirect handler opens the authorization URL
    with the portal session and presses a button; its callback handler returns what the
    redirect to the client's redirect URI carried."""

    def __init__(self, browser: Browser, base: str, issuer: str) -> None:
        self.browser = browser
        self.base = base
        self.issuer = issuer
        self.authorization_urls: list[str] = []
        self.results: list[AuthorizationCodeResult] = []

    async def consent_form(self, url: str, label: str) -> Form:
        """Opens an authorization URL signed in; checks the consent page; returns its form."""
        page = await self.browser.request("GET", url)
        Check.that(page.status_code == 200, f"{label}: the consent page is 200 "
                   f"(cookie manabi_session Path={self.browser.cookie_path('manabi_session')})", page.status_code)
        Check.that(page.headers.get("content-type", "").startswith("text/html"), f"{label}: consent page is HTML",
                   page.headers.get("content-type"))
        framing = page.headers.get("x-frame-options", "").lower() + page.headers.get("content-security-policy", "")
        Check.that("deny" in framing or "frame-ancestors 'none'" in framing, f"{label}: the consent page is never framed",
                   dict(page.headers))
        parsed = Forms(page.text)
        Check.that(CLIENT_NAME in parsed.page_text(), f"{label}: the consent page names the client", parsed.page_text()[:400])
        form = parsed.form("/oauth/authorize")
        Check.that(form is not None, f"{label}: the consent page has a form to /oauth/authorize",
                   [f.action for f in parsed.forms])
        params = query_of(url)
        for name in ("client_id", "redirect_uri", "state", "code_challenge", "resource"):
            if name in params:
                Check.that(form.fields.get(name) == params[name], f"{label}: the form carries {name}",
                           (form.fields.get(name), params[name]))
        Check.that(bool(form.fields.get("csrf")), f"{label}: the consent form carries a CSRF token", form.fields)
        decisions = {(name, value) for name, value, _ in form.buttons}
        Check.that({("decision", "allow"), ("decision", "deny")} <= decisions, f"{label}: Allow and Deny buttons",
                   form.buttons)
        return form

    async def decide(self, form: Form, decision: str, label: str, overrides: dict[str, str] | None = None) -> httpx2.Response:
        return await self.browser.submit(form, {**(overrides or {}), "decision": decision})

    async def redirect_handler(self, authorization_url: str) -> None:
        """The SDK's redirect handler: the authorization URL goes to the person."""
        self.authorization_urls.append(authorization_url)
        params = query_of(authorization_url)
        Check.that(authorization_url.startswith(f"{self.base}/oauth/authorize?"),
                   "the SDK opens the advertised authorization endpoint", authorization_url)
        Check.that(params.get("response_type") == "code", "the SDK asks for a code", params)
        Check.that(params.get("code_challenge_method") == "S256", "the SDK uses PKCE S256", params)
        Check.that(params.get("resource") == f"{self.base}/mcp", "the SDK names the resource /mcp", params)
        Check.that(params.get("scope") == scope(), f"the SDK asks for scope {scope()} (from the challenge)", params)
        Check.that(params.get("redirect_uri") == REDIRECT_URI, "the SDK sends its redirect URI", params)
        form = await self.consent_form(authorization_url, "sdk")
        allowed = await self.decide(form, "allow", "sdk")
        Check.that(allowed.status_code == 303, "Allow is a 303", allowed.status_code)
        location = allowed.headers.get("location", "")
        Check.that(location.startswith(REDIRECT_URI + "?"), "Allow redirects to the client's redirect URI", location)
        back = query_of(location)
        Check.that(back.get("state") == params["state"], "the redirect carries the state", back)
        Check.that(bool(back.get("code")), "the redirect carries a code", back)
        if "iss" in back:
            Check.that(back["iss"] == self.issuer, "the redirect's iss is the issuer", back)
        self.results.append(AuthorizationCodeResult(code=back["code"], state=back.get("state"), iss=back.get("iss")))

    async def callback_handler(self) -> AuthorizationCodeResult:
        Check.that(bool(self.results), "the redirect handler produced a code before the callback")
        return self.results.pop(0)


def paths(exchanges: list[Exchange]) -> list[tuple[str, str, int | None]]:
    return [(e.method, urlsplit(e.url).path, e.status) for e in exchanges]


def contains_in_order(seen: list[tuple[str, str, int | None]], wanted: list[tuple[str, str, int]]) -> bool:
    position = 0
    for item in seen:
        if position < len(wanted) and item == wanted[position]:
            position += 1
    return position == len(wanted)


async def check_sdk(base: str, browser: Browser, ledger: Ledger, account: str) -> dict[str, Any]:
    """The SDK's whole OAuth flow, the MCP calls with its token, and its refresh."""
    storage = MemoryStorage()
    person = Person(browser, base, base)
    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME,
        redirect_uris=[AnyUrl(REDIRECT_URI)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    provider = OAuthClientProvider(
        server_url=f"{base}/mcp",
        client_metadata=metadata,
        storage=storage,
        redirect_handler=person.redirect_handler,
        callback_handler=person.callback_handler,
    )
    first = len(Record.exchanges)
    timeout = httpx2.Timeout(30, read=300)
    with anyio.fail_after(120):
        async with (
            httpx2.AsyncClient(timeout=timeout, auth=provider, event_hooks=Record.hooks("sdk")) as http,
            streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            print(f"sdk: initialized, revision {initialized.protocol_version}")
            Check.that(initialized.server_info.name == "manabi", "server info", initialized.server_info)
            flow = paths([e for e in Record.exchanges[first:] if e.who == "sdk"])
            print("sdk: " + ", ".join(f"{m} {p} {s}" for m, p, s in flow))
            Check.that(contains_in_order(flow, [
                ("POST", "/mcp", 401),
                ("GET", "/.well-known/oauth-protected-resource/mcp", 200),
                ("GET", "/.well-known/oauth-authorization-server", 200),
                ("POST", "/oauth/register", 201),
                ("POST", "/oauth/token", 200),
                ("POST", "/mcp", 200),
            ]), "401 -> resource metadata -> AS metadata -> register -> token -> /mcp", flow)
            Check.that(len(person.authorization_urls) == 1, "the person was asked once", person.authorization_urls)
            client = storage.client_info
            Check.that(client is not None and bool(client.client_id), "the registration is stored", client)
            Check.that(query_of(person.authorization_urls[0]).get("client_id") == client.client_id,
                       "the authorization named the registered client", client.client_id)
            tokens = storage.tokens
            Check.that(tokens is not None and bool(tokens.access_token), "an access token is stored", tokens)
            Check.that(tokens.token_type == "Bearer", "token type Bearer", tokens.token_type)
            Check.that(tokens.expires_in is not None and 0 < tokens.expires_in <= 3600, "expires within an hour",
                       tokens.expires_in)
            Check.that(bool(tokens.refresh_token), "a refresh token is stored", tokens)
            Check.that(tokens.scope == scope(), f"granted scope {scope()}", tokens.scope)

            tools = (await session.list_tools()).tools
            Check.that([tool.name for tool in tools] == TOOLS, "six tools in order", [t.name for t in tools])
            search = await session.call_tool("search_learnables", {"query": "taberu"})
            data = search.structured_content or {}
            Check.that(search.is_error is False, "search_learnables with the OAuth token succeeds", data)
            Check.that(data.get("billing", {}).get("points_charged") == SEARCH_POINTS, "billed 5 points", data.get("billing"))
            Check.that(ledger.balance(account) == GRANT - SEARCH_POINTS, "the ledger charged the portal account")

            # The access token "expires": the SDK refreshes it before the next request.
            old = storage.tokens
            provider.context.token_expiry_time = time.time() - 1
            mark = len(Record.exchanges)
            tools = (await session.list_tools()).tools
            Check.that(len(tools) == len(TOOLS), "tools listed after the refresh")
            flow = paths([e for e in Record.exchanges[mark:] if e.who == "sdk"])
            print("sdk refresh: " + ", ".join(f"{m} {p} {s}" for m, p, s in flow))
            Check.that(contains_in_order(flow, [("POST", "/oauth/token", 200), ("POST", "/mcp", 200)]),
                       "the SDK refreshed at the token endpoint", flow)
            refresh_request = next(e for e in Record.exchanges[mark:] if urlsplit(e.url).path == "/oauth/token")
            Check.that("grant_type=refresh_token" in refresh_request.request_body, "a refresh_token grant",
                       refresh_request.request_body)
            new = storage.tokens
            Check.that(new.access_token != old.access_token, "a new access token")
            Check.that(bool(new.refresh_token) and new.refresh_token != old.refresh_token, "the refresh token rotated")
            worlds = await session.call_tool("list_worlds", {})
            Check.that(worlds.is_error is False, "a call with the refreshed token", worlds.structured_content)
            balance = ledger.balance(account)
    return {"client_id": client.client_id, "old_refresh": old.refresh_token, "refresh": new.refresh_token,
            "access": new.access_token, "balance": balance}


# ---- raw HTTP ----------------------------------------------------------------------


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


class Raw:
    """An OAuth client by hand (RFC 6749, 7636, 7591, 8707) for the refusals."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx2.AsyncClient(timeout=30, follow_redirects=False, event_hooks=Record.hooks("raw"))
        self.client_id = ""

    async def close(self) -> None:
        await self.http.aclose()

    async def register(self) -> None:
        response = await self.http.post(f"{self.base}/oauth/register", json={
            "client_name": CLIENT_NAME,
            "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        })
        Check.that(response.status_code == 201, "raw registration is 201", response.status_code)
        self.client_id = response.json()["client_id"]
        Check.that(bool(self.client_id), "raw registration has a client_id", response.text)

    def authorize_url(self, challenge: str, state: str, **overrides: str) -> str:
        params = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": REDIRECT_URI,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
            "resource": f"{self.base}/mcp",
            "scope": scope(),
        }
        params.update(overrides)
        return f"{self.base}/oauth/authorize?{urlencode(params)}"

    async def token(self, **data: str) -> httpx2.Response:
        return await self.http.post(f"{self.base}/oauth/token", data={"client_id": self.client_id, **data})

    async def exchange(self, code: str, verifier: str, resource: str | None = None) -> httpx2.Response:
        return await self.token(grant_type="authorization_code", code=code, redirect_uri=REDIRECT_URI,
                                code_verifier=verifier, resource=resource or f"{self.base}/mcp")

    async def refresh(self, refresh_token: str) -> httpx2.Response:
        return await self.token(grant_type="refresh_token", refresh_token=refresh_token, resource=f"{self.base}/mcp")

    async def mcp(self, bearer: str | None) -> httpx2.Response:
        headers = dict(MCP_ACCEPT)
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        return await self.http.post(f"{self.base}/mcp", json=INITIALIZE, headers=headers)


def refused_grant(response: httpx2.Response, what: str, error: str = "invalid_grant") -> None:
    Check.that(response.status_code == 400, f"{what}: 400", response.status_code)
    body = response.json() if response.headers.get("content-type", "").startswith("application/json") else {}
    Check.that(body.get("error") == error, f"{what}: error {error}", response.text)


def refused_target(response: httpx2.Response, state: str, what: str) -> None:
    """Refused with no code: an error page (400), or back to the client with
    `invalid_target` (RFC 8707 section 2; RFC 6749 section 4.1.2.1 once the client and
    its redirect URI are known)."""
    location = response.headers.get("location", "")
    back = query_of(location)
    if response.status_code == 400:
        Check.that(not location, f"{what}: refused with 400, no redirect", location)
        print(f"{what}: 400")
        return
    Check.that(response.status_code in (302, 303) and location.startswith(REDIRECT_URI + "?"),
               f"{what}: refused (400, or back to the client with an error)", (response.status_code, location))
    Check.that(back.get("error") == "invalid_target" and "code" not in back and back.get("state") == state,
               f"{what}: invalid_target, the state, no code", back)
    print(f"{what}: {response.status_code} to the client with error=invalid_target")


async def allowed_code(person: Person, raw: Raw, label: str) -> tuple[str, str]:
    """A fresh authorization through the consent page; returns (code, verifier)."""
    verifier, challenge = pkce()
    state = secrets.token_urlsafe(16)
    form = await person.consent_form(raw.authorize_url(challenge, state), label)
    allowed = await person.decide(form, "allow", label)
    Check.that(allowed.status_code == 303, f"{label}: Allow is a 303", allowed.status_code)
    back = query_of(allowed.headers.get("location", ""))
    Check.that(back.get("state") == state and bool(back.get("code")), f"{label}: code and state", back)
    return back["code"], verifier


async def check_metadata(base: str) -> None:
    async with httpx2.AsyncClient(timeout=30, event_hooks=Record.hooks("metadata")) as http:
        for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
            response = await http.get(f"{base}{path}")
            Check.that(response.status_code == 200, f"GET {path} is 200", response.status_code)
            document = response.json()
            Check.that(document.get("resource") == f"{base}/mcp", f"{path}: resource", document)
            Check.that(document.get("authorization_servers") == [base], f"{path}: authorization server", document)
            scopes = document.get("scopes_supported")
            Check.that(isinstance(scopes, list) and len(scopes) == 1, f"{path}: one scope", scopes)
            if not SCOPE:
                SCOPE.append(scopes[0])
                print(f"scope: {scope()}")
            Check.that(scopes == SCOPE, f"{path}: scopes", scopes)
        response = await http.get(f"{base}/.well-known/oauth-authorization-server")
        Check.that(response.status_code == 200, "AS metadata is 200", response.status_code)
        meta = response.json()
        expected = {
            "issuer": base,
            "authorization_endpoint": f"{base}/oauth/authorize",
            "token_endpoint": f"{base}/oauth/token",
            "registration_endpoint": f"{base}/oauth/register",
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        }
        for key, value in expected.items():
            Check.that(meta.get(key) == value, f"AS metadata {key}", meta.get(key))
        Check.that({"authorization_code", "refresh_token"} <= set(meta.get("grant_types_supported", [])),
                   "AS metadata grant types", meta.get("grant_types_supported"))
        Check.that("code" in meta.get("response_types_supported", []), "AS metadata response types", meta)
        Check.that(meta.get("scopes_supported") == SCOPE, "AS metadata scopes", meta.get("scopes_supported"))


async def check_gate(base: str, raw: Raw) -> None:
    metadata = f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
    for bearer, label in ((None, "no credential"), ("bogus-" + secrets.token_hex(16), "a bogus bearer token")):
        response = await raw.mcp(bearer)
        Check.that(response.status_code == 401, f"/mcp with {label} is 401", response.status_code)
        challenge = response.headers.get("www-authenticate", "")
        Check.that(challenge.lower().startswith("bearer ") and metadata in challenge,
                   f"/mcp with {label}: the challenge names the resource metadata", challenge)
        Check.that(f'scope="{scope()}"' in challenge, f"/mcp with {label}: the challenge names scope {scope()}",
                   challenge)
        if bearer is not None:
            print(f"bogus bearer challenge: {challenge}")


async def check_refusals(base: str, browser: Browser, raw: Raw, sdk: dict[str, Any], maildir: Path) -> None:
    person = Person(browser, base, base)
    await raw.register()

    # Another resource: the request is refused before any consent, and no code is issued.
    verifier, challenge = pkce()
    evil = await browser.request("GET", raw.authorize_url(challenge, "s-evil", resource=EVIL_RESOURCE))
    refused_target(evil, "s-evil", "an authorization for another resource")

    # A consent form whose resource was changed after it was shown: no code for it.
    form = await person.consent_form(raw.authorize_url(challenge, "s-tamper"), "tampered")
    tampered = await person.decide(form, "allow", "tampered", {"resource": EVIL_RESOURCE})
    code = query_of(tampered.headers.get("location", "")).get("code")
    if code is None:
        refused_target(tampered, "s-tamper", "a consent form naming another resource")
    else:
        token = await raw.exchange(code, verifier, EVIL_RESOURCE)
        Check.that(token.status_code == 400, "no token for another resource from a tampered form", token.text)

    # The consent form without its CSRF token, or with another, does nothing.
    form = await person.consent_form(raw.authorize_url(challenge, "s-csrf"), "csrf")
    forged = await person.decide(form, "allow", "csrf", {"csrf": secrets.token_hex(32)})
    Check.that(forged.status_code in (400, 403) and "code=" not in forged.headers.get("location", ""),
               "a consent with a wrong CSRF token is refused", forged.status_code)

    # An unregistered redirect URI: an error page, never a redirect to it (RFC 6749 4.1.2.1).
    stray = await browser.request("GET", raw.authorize_url(challenge, "s-stray", redirect_uri="http://127.0.0.1:9/elsewhere"))
    Check.that(stray.status_code == 400 and "location" not in stray.headers,
               "an unregistered redirect URI is refused without a redirect", (stray.status_code, stray.headers.get("location")))

    # A code with the wrong verifier, and a code exchanged twice.
    code, verifier = await allowed_code(person, raw, "verifier")
    refused_grant(await raw.exchange(code, "x" * 64), "a code with the wrong verifier")
    code, verifier = await allowed_code(person, raw, "twice")
    wrong_resource = await raw.exchange(code, verifier, EVIL_RESOURCE)
    Check.that(wrong_resource.status_code == 400, "a code exchanged for another resource is refused", wrong_resource.text)
    code, verifier = await allowed_code(person, raw, "twice")
    first = await raw.exchange(code, verifier)
    Check.that(first.status_code == 200, "the code's first exchange is 200", first.text)
    Check.that("no-store" in first.headers.get("cache-control", ""), "token responses are Cache-Control: no-store",
               first.headers.get("cache-control"))
    tokens = first.json()
    Check.that(tokens.get("token_type", "").lower() == "bearer" and tokens.get("expires_in") == 3600,
               "a bearer token for an hour", tokens)
    working = await raw.mcp(tokens["access_token"])
    Check.that(working.status_code == 200, "the raw flow's access token opens /mcp", working.status_code)
    refused_grant(await raw.exchange(code, verifier), "the same code a second time")
    # A code presented twice may have been stolen: its grant ends (RFC 9700), so the
    # access token it gave stops working.
    ended = await raw.mcp(tokens["access_token"])
    Check.that(ended.status_code == 401, "a code presented twice ends its grant", ended.status_code)

    # A refresh token used twice: the second use is refused (and ends that grant too).
    code, verifier = await allowed_code(person, raw, "refresh")
    tokens = (await raw.exchange(code, verifier)).json()
    refreshed = await raw.refresh(tokens["refresh_token"])
    Check.that(refreshed.status_code == 200, "the first refresh is 200", refreshed.text)
    Check.that(refreshed.json().get("refresh_token") not in (None, tokens["refresh_token"]), "the refresh rotates",
               refreshed.text)
    refused_grant(await raw.refresh(tokens["refresh_token"]), "a refresh token a second time")
    # And the SDK's first refresh token, replaced when the SDK refreshed.
    sdk_refresh = await raw.http.post(f"{base}/oauth/token", data={
        "grant_type": "refresh_token", "refresh_token": sdk["old_refresh"], "client_id": sdk["client_id"],
        "resource": f"{base}/mcp"})
    refused_grant(sdk_refresh, "the SDK's rotated-out refresh token")

    # Deny: back to the client with access_denied and the state, no code.
    verifier, challenge = pkce()
    form = await person.consent_form(raw.authorize_url(challenge, "s-deny"), "deny")
    denied = await person.decide(form, "deny", "deny")
    back = query_of(denied.headers.get("location", ""))
    Check.that(denied.status_code == 303 and denied.headers.get("location", "").startswith(REDIRECT_URI),
               "Deny redirects to the client", (denied.status_code, denied.headers.get("location")))
    Check.that(back.get("error") == "access_denied" and back.get("state") == "s-deny" and "code" not in back,
               "Deny carries access_denied and the state", back)

    # Signed out: the authorization shows the sign-in page, and the sign-in comes back to it.
    visitor = Browser(base, "visitor")
    visitor.read_mail = browser.read_mail
    try:
        url = raw.authorize_url(challenge, "s-return")
        page = await visitor.request("GET", url)
        Check.that(page.status_code == 200, "signed out, the authorization shows a page", page.status_code)
        Check.that(Forms(page.text).form("/oauth/authorize") is None, "signed out, no consent form", page.text[:300])
        confirmed = await visitor.sign_in_from(page, SECOND_EMAIL, maildir, "return")
        target = urljoin(base + "/", confirmed.headers.get("location", ""))
        Check.that(urlsplit(target).path == "/oauth/authorize" and query_of(target) == query_of(url),
                   "the confirmation returns to the authorization request", target)
        visitor_person = Person(visitor, base, base)
        form = await visitor_person.consent_form(target, "return")
        allowed = await visitor_person.decide(form, "allow", "return")
        Check.that(allowed.status_code == 303 and "code=" in allowed.headers.get("location", ""),
                   "after signing in, Allow issues a code", allowed.headers.get("location"))
    finally:
        await visitor.close()


async def read_response(reader: Any) -> tuple[str, bytes]:
    """One HTTP/1.1 response with a Content-Length body: (head, body)."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    length = next((int(line.split(":", 1)[1]) for line in head.split("\r\n")
                   if line.lower().startswith("content-length:")), 0)
    return head, await reader.readexactly(length)


async def check_keep_alive_after_401(base: str) -> None:
    """The SDK sends `POST /mcp`, gets the 401 and at once asks for the resource metadata
    on the same keep-alive connection. httpcore writes a request's head and its body
    separately, so the body may arrive after the 401 was decided: the connection must
    still answer the next request, or the 401 must say `Connection: close`. (Sent here by
    hand with the body 20 ms after the head, so the outcome does not depend on timing.)"""
    split = urlsplit(base)
    reader, writer = await asyncio.open_connection(split.hostname, split.port)
    try:
        body = json.dumps(INITIALIZE).encode()
        writer.write((f"POST /mcp HTTP/1.1\r\nHost: {split.netloc}\r\nContent-Type: application/json\r\n"
                      f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n").encode())
        await writer.drain()
        await asyncio.sleep(0.02)
        writer.write(body)
        await writer.drain()
        head, _ = await asyncio.wait_for(read_response(reader), 10)
        Check.that(head.startswith("HTTP/1.1 401"), "keep-alive: the POST /mcp is 401", head)
        if "\r\nconnection: close" in head.lower():
            Check.that(True, "keep-alive: the 401 closes the connection and says so")
            return
        try:
            writer.write(f"GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {split.netloc}\r\n\r\n".encode())
            await writer.drain()
            second, _ = await asyncio.wait_for(read_response(reader), 10)
        except (asyncio.IncompleteReadError, ConnectionError) as error:
            second = f"<the server closed the connection: {error!r}>"
        Check.that(second.startswith("HTTP/1.1 200"),
                   "keep-alive: after a 401 whose request body came after its head, the connection (kept "
                   "alive: no `Connection: close`) answers the next request; the SDK's metadata GET fails "
                   "with RemoteProtocolError otherwise.", f"\n401 head:\n{head}\nnext answer: {second}")
    finally:
        writer.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="server address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--maildir", required=True, type=Path, help="where the SMTP sink keeps mail")
    parser.add_argument("--manabi", required=True, help="the manabi binary (for admin commands)")
    parser.add_argument("--database-url", required=True, help="the ledger the server bills against")
    args = parser.parse_args()
    base = args.base.rstrip("/")
    ledger = Ledger(args.manabi, args.database_url)

    await check_metadata(base)
    raw = Raw(base)
    browser = Browser(base, "browser")
    try:
        await check_gate(base, raw)

        # The portal sign-in, as a browser.
        home = await browser.request("GET", "/developers")
        Check.that(home.status_code == 200, "GET /developers is 200", home.status_code)
        confirmed = await browser.sign_in_from(home, EMAIL, args.maildir, "portal")
        Check.that(urlsplit(confirmed.headers.get("location", "")).path == "/developers",
                   "the portal's confirmation goes to the dashboard", confirmed.headers.get("location"))
        print(f"portal: signed in; manabi_session Path={browser.cookie_path('manabi_session')}")
        dashboard = await browser.request("GET", "/developers")
        found = re.search(r"--account ([0-9a-f-]{36})", dashboard.text)
        Check.that(dashboard.status_code == 200 and found is not None, "the dashboard shows the account id",
                   dashboard.text[:300])
        account = found.group(1)
        ledger.grant(account, GRANT)
        Check.that(ledger.balance(account) == GRANT, f"{GRANT} points granted")

        sdk = await check_sdk(base, browser, ledger, account)
        await check_refusals(base, browser, raw, sdk, args.maildir)
        Check.that(ledger.balance(account) == sdk["balance"], "nothing else charged to the account")
        await check_keep_alive_after_401(base)
    finally:
        await browser.close()
        await raw.close()
    print(f"mcp oauth: {Check.passed} checks passed")


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        anyio.run(main)
    except BaseException:  # an exception out of the SDK: its trace, then the record
        traceback.print_exc()
        fail("an exception ended the run (trace above)")
