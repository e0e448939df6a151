// Pays manabi's x402 mirror with the official TypeScript client: `@x402/fetch`'s
// wrapFetchWithPayment over an x402Client with `@x402/evm`'s exact EVM scheme, signed by a
// throwaway viem account. Buys a search and a read of its first hit, checks each answer is
// 200 with the data and a PAYMENT-RESPONSE the SDK decodes as a successful settlement, and,
// given the stand-in facilitator's address, that it settled exactly these two payments.
//
// Usage: node pay.mjs BASE_URL [FACILITATOR_URL]   (run by scripts/suites/x402_clients.sh)
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const [base, facilitator] = process.argv.slice(2).map((url) => url?.replace(/\/+$/, ""));
if (!base) {
  console.error("usage: node pay.mjs BASE_URL [FACILITATOR_URL]");
  process.exit(2);
}

const SEARCH_AMOUNT = "33334";
const READ_AMOUNT = "6667";
let passed = 0;

function check(condition, what, detail = "") {
  if (!condition) {
    console.error(`FAIL: ${what} ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    process.exit(1);
  }
  passed += 1;
}

function decodeHeader(value) {
  return JSON.parse(Buffer.from(value, "base64").toString("utf8"));
}

async function settlements() {
  const response = await fetch(`${facilitator}/settlements`);
  check(response.ok, "GET /settlements", String(response.status));
  return response.json();
}

// Every request the SDK sends and what it got, to show the exchange on failure.
const exchanges = [];
async function recordingFetch(input, init) {
  const request = new Request(input, init);
  const response = await fetch(request);
  exchanges.push({
    url: request.url,
    paid: request.headers.has("PAYMENT-SIGNATURE") || request.headers.has("X-PAYMENT"),
    version: request.headers.has("PAYMENT-SIGNATURE") ? 2 : request.headers.has("X-PAYMENT") ? 1 : 0,
    status: response.status,
    paymentRequired: response.headers.get("PAYMENT-REQUIRED"),
  });
  return response;
}

async function shown(response) {
  const headers = {};
  for (const name of ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE"]) {
    const value = response.headers.get(name);
    if (value) {
      try {
        headers[name] = decodeHeader(value);
      } catch {
        headers[name] = value;
      }
    }
  }
  const body = await response.clone().text();
  return `status ${response.status} headers ${JSON.stringify(headers)} body ${body.slice(0, 2000)} exchanges ${JSON.stringify(exchanges)}`;
}

const account = privateKeyToAccount(generatePrivateKey());
const client = new x402Client();
registerExactEvmScheme(client, { signer: account });
const pay = wrapFetchWithPayment(recordingFetch, client);
const before = facilitator ? (await settlements()).length : 0;
console.log(`payer ${account.address}`);

async function paidGet(path, amount, what) {
  const start = exchanges.length;
  const response = await pay(`${base}/x402${path}`);
  check(response.status === 200, `${what} is 200`, await shown(response));
  const mine = exchanges.slice(start);
  check(
    mine.length === 2 && mine[0].status === 402 && mine[1].paid && mine[1].version === 2,
    `${what}: one 402, then one v2 payment`,
    mine,
  );
  const terms = decodeHeader(mine[0].paymentRequired);
  check(terms.x402Version === 2 && terms.accepts?.[0]?.amount === amount, `${what}: asked ${amount}`, terms);
  const header = response.headers.get("PAYMENT-RESPONSE");
  check(header, `${what}: PAYMENT-RESPONSE header`, await shown(response));
  const settle = decodePaymentResponseHeader(header);
  check(settle.success === true && settle.transaction, `${what}: settled`, settle);
  check(
    !settle.payer || settle.payer.toLowerCase() === account.address.toLowerCase(),
    `${what}: payer`,
    settle,
  );
  const body = await response.json();
  check(body.ok === true, `${what}: envelope ok`, body);
  console.log(`${what}: tx ${settle.transaction}`);
  return body.data;
}

const search = await paidGet("/api/v1/learnables?query=taberu", SEARCH_AMOUNT, "js search");
check(Array.isArray(search.results) && search.results.length > 0, "js search finds taberu", search);
check(search.billing && typeof search.billing === "object", "js search: billing inside data", Object.keys(search));
const first = search.results[0].id;
const learnable = await paidGet(`/api/v1/learnables/${encodeURIComponent(first)}`, READ_AMOUNT, "js read");
check(learnable.id === first, "js read answers its id", learnable);

if (facilitator) {
  const settled = (await settlements()).slice(before);
  check(settled.length === 2, "js: two settlements", settled);
  check(
    settled.map((s) => String(s.value)).join() === `${SEARCH_AMOUNT},${READ_AMOUNT}`,
    "js: settled the prices",
    settled,
  );
  check(
    settled.every((s) => String(s.payer).toLowerCase() === account.address.toLowerCase()),
    "js: settled from the payer",
    settled,
  );
}
console.log(`x402 js sdk: ${passed} checks passed`);
