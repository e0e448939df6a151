// Drives the developer portal (`/developers`) of a live `manabi serve` in Debian's
// headless Chromium with playwright-core, as a person would: asks for a sign-in link,
// reads it from the mail the stand-in SMTP server kept, confirms it, sees the dashboard,
// buys the starter pack through the Stripe stand-in's checkout, creates a key, spends it on
// a REST call, sees the balance and the usage move, revokes the key, signs out and finds
// the used link refused. Along the way: every input has a label, Tab reaches the email
// field, the text has enough contrast, a 390 px wide screen needs no sideways scrolling,
// and sign-in works with JavaScript off. A full-page screenshot of every page goes to
// SHOTS. Run by scripts/suites/portal_browser.sh.
//
// Usage: node browser.mjs BASE MAILDIR SHOTS MANABI_BIN DATABASE_URL
// Env: CHROMIUM (default /usr/bin/chromium).
// A failed check of what the portal does stops the run, with the page's address, status,
// an excerpt of its HTML and a screenshot (failure.png); a failed check of how a page
// reads (contrast, width) is reported and the run goes on. Either exits 1. The last line
// is "portal_browser: N passed, N failed".

import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [base, maildir, shots, manabi, databaseUrl] = process.argv.slice(2);
if (!databaseUrl) {
  console.error("usage: node browser.mjs BASE MAILDIR SHOTS MANABI_BIN DATABASE_URL");
  process.exit(2);
}
mkdirSync(shots, { recursive: true });

const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 390, height: 844 };
const STEP_MS = 10_000;

let passed = 0;
let numbered = 0; // every check, passed or not, in order
let current = null; // the page a failure is reported about
let lastStatus = null; // the status of the last document it loaded

class CheckFailed extends Error {}

function ok(condition, what, detail) {
  if (!condition) {
    throw new CheckFailed(detail === undefined ? what : `${what}: ${detail}`);
  }
  passed += 1;
  numbered += 1;
  console.log(`ok ${numbered} - ${what}`);
}

/**
 * A check of how a page reads (contrast, width) rather than of what the portal does: a
 * failure is reported and counted, and the flow goes on, so one run shows every such
 * problem. Any of them still fails the run.
 */
const softFailures = [];
function soft(condition, what, detail) {
  if (condition) {
    ok(true, what);
    return;
  }
  const text = detail === undefined ? what : `${what}: ${detail}`;
  softFailures.push(text);
  numbered += 1;
  console.error(`not ok ${numbered} - ${text}`);
}

function note(text) {
  console.log(`# ${text}`);
}

/** Follows the status of every document the page loads. */
function track(page) {
  page.on("response", (response) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) {
      lastStatus = response.status();
    }
  });
  return page;
}

let shotNumber = 0;
async function shot(page, name) {
  if (page.viewportSize()?.width === WIDE.width) await fits(page, name);
  shotNumber += 1;
  const file = join(shots, `${String(shotNumber).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  note(`screenshot ${file}`);
}

async function heading(page) {
  return (await page.locator("h1").first().textContent({ timeout: STEP_MS }))?.trim();
}

/** Clicks and waits for the page the click loads. */
async function submit(page, locator) {
  await Promise.all([page.waitForEvent("load", { timeout: STEP_MS }), locator.click()]);
}

// ---- the mailbox --------------------------------------------------------------------

/** The decoded text of a raw message (single part; 7bit, 8bit, quoted-printable or base64). */
function mailText(raw) {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, " ");
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const headers = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  let text = body;
  if (encoding === "quoted-printable") {
    const bytes = Buffer.from(
      body.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))),
      "latin1",
    );
    text = bytes.toString("utf8");
  } else if (encoding === "base64") {
    text = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  }
  return { headers, text };
}

/** Waits for the mail to `address` (the first not yet read) and returns it. */
const readMail = new Set();
async function mailTo(address) {
  const deadline = Date.now() + STEP_MS;
  while (Date.now() < deadline) {
    const files = readdirSync(maildir)
      .filter((name) => name.endsWith(".eml") && !readMail.has(name))
      .sort();
    for (const name of files) {
      const mail = mailText(readFileSync(join(maildir, name), "latin1"));
      if ((mail.headers["x-sink-rcpt-to"] ?? "").toLowerCase().includes(address.toLowerCase())) {
        readMail.add(name);
        return mail;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new CheckFailed(`no mail reached the sink for ${address} within ${STEP_MS} ms (files: ${readdirSync(maildir).join(", ") || "none"})`);
}

// ---- checks shared by every page ----------------------------------------------------

/** Every visible form control has a label that names it (getByLabel finds it). */
async function everyInputLabelled(page, what) {
  const unlabelled = await page.evaluate(() =>
    [...document.querySelectorAll("input:not([type=hidden]), select, textarea")]
      .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby"))
      .map((el) => el.outerHTML),
  );
  ok(unlabelled.length === 0, `${what}: every input has a label`, unlabelled.join(" "));
}

/** WCAG AA contrast (4.5:1, 3:1 for large text) of every visible text against its background. */
async function contrastAA(page, what) {
  const failures = await page.evaluate(() => {
    const parse = (color) => {
      const m = color.match(/rgba?\(([^)]+)\)/);
      if (!m) return null;
      const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return { r, g, b, a };
    };
    const luminance = ({ r, g, b }) => {
      const channel = (v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const background = (el) => {
      for (let node = el; node; node = node.parentElement) {
        const color = parse(getComputedStyle(node).backgroundColor);
        if (color && color.a > 0.5) return color;
      }
      return { r: 255, g: 255, b: 255, a: 1 };
    };
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!el || seen.has(el) || !node.textContent.trim()) continue;
      seen.add(el);
      if (el.closest("svg")) continue; // chart labels: checked in the screenshots
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (!rect.width || !rect.height || style.visibility === "hidden") continue;
      const fg = parse(style.color);
      const bg = background(el);
      if (!fg) continue;
      const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
      const ratio = (hi + 0.05) / (lo + 0.05);
      const size = parseFloat(style.fontSize);
      const bold = Number(style.fontWeight) >= 700;
      const large = size >= 24 || (bold && size >= 18.66);
      if (ratio < (large ? 3 : 4.5)) {
        out.push(`"${node.textContent.trim().slice(0, 40)}" ${style.color} on rgb(${bg.r}, ${bg.g}, ${bg.b}): ${ratio.toFixed(2)}`);
      }
    }
    return out;
  });
  soft(failures.length === 0, `${what}: text contrast meets WCAG AA`, failures.join("; "));
}

/** How far the page is wider than its viewport, and which elements make it so. */
async function overflow(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrolls = (el) => ["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(el).overflowX);
    const inScroller = (el) => {
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        if (scrolls(up) && up.getBoundingClientRect().right <= width + 1) return true;
      }
      return false;
    };
    const name = (el) => `<${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${typeof el.className === "string" && el.className ? "." + el.className.split(" ").join(".") : ""}>`;
    const culprits = [...document.querySelectorAll("body *")]
      .filter((el) => !inScroller(el))
      .filter((el) => {
        const rect = el.getBoundingClientRect();
        // The element sticks out, or its content spills out of it (a <pre> that does not wrap).
        return rect.right > width + 1 || (!scrolls(el) && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && rect.left + el.scrollWidth > width + 1);
      });
    // Only the innermost: a box is too wide because of what is inside it.
    const wide = culprits
      .filter((el) => !culprits.some((other) => other !== el && el.contains(other)))
      .map((el) => `${name(el)} content ${el.scrollWidth} px in a ${Math.round(el.getBoundingClientRect().width)} px box`);
    return { scrollWidth: document.documentElement.scrollWidth, width, wide: wide.slice(0, 6) };
  });
}

/** The page fits its viewport's width (no sideways scrolling). */
async function fits(page, what) {
  const found = await overflow(page);
  soft(
    found.scrollWidth <= found.width && found.wide.length === 0,
    `${what}: no sideways scrolling at ${found.width} px`,
    `page ${found.scrollWidth} px wide in a ${found.width} px viewport; too wide: ${found.wide.join(", ")}`,
  );
}

/** The page at 390 px: fits, and its screenshot is kept. */
async function narrow(page, name) {
  await page.setViewportSize(NARROW);
  await shot(page, `${name}-390px`);
  await fits(page, name);
  await page.setViewportSize(WIDE);
}

// ---- the REST API -------------------------------------------------------------------

async function callApi(key) {
  const response = await fetch(`${base}/api/v1/learnables?query=taberu`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  const text = await response.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // reported with the status below
  }
  return { status: response.status, body, text };
}

// ---- the flow -----------------------------------------------------------------------

/** Asks for a link for `email` and opens it; returns the link. Leaves the page on the confirmation. */
async function askForLink(page, email, label) {
  await page.goto(`${base}/developers`);
  ok(lastStatus === 200, `${label}: GET /developers answers 200`, lastStatus);
  ok((await heading(page)) === "Sign in", `${label}: the sign-in page shows "Sign in"`, await heading(page));
  await page.getByLabel("Email address").fill(email);
  await submit(page, page.getByRole("button", { name: "Email me a sign-in link" }));
  ok(lastStatus === 200, `${label}: asking for a link answers 200`, lastStatus);
  ok((await heading(page)) === "Check your inbox", `${label}: the page says "Check your inbox"`, await heading(page));
  ok((await page.locator("main").textContent()).includes(email), `${label}: the page names the address`);
  return page;
}

async function linkFromMail(email, label) {
  const mail = await mailTo(email);
  ok(/sign-in link/i.test(mail.headers.subject ?? ""), `${label}: the mail's subject speaks of a sign-in link`, mail.headers.subject);
  const match = mail.text.match(/(https?:\/\/\S+\/developers\/sign-in\/)([0-9a-f]{64})\b/);
  ok(match !== null, `${label}: the mail holds a sign-in link`, mail.text);
  const link = match[0];
  ok(link.startsWith(`${base}/developers/sign-in/`), `${label}: the link points at this server`, link);
  return link;
}

async function confirmLink(page, link, email, label) {
  await page.goto(link);
  ok(lastStatus === 200, `${label}: opening the link answers 200`, lastStatus);
  ok((await heading(page)) === `Sign in as ${email}`, `${label}: the link page says "Sign in as ${email}"`, await heading(page));
}

async function signIn(page, link, email, label) {
  await submit(page, page.getByRole("button", { name: "Sign in", exact: true }));
  ok(lastStatus === 200, `${label}: signing in lands on a 200 page`, lastStatus);
  ok(new URL(page.url()).pathname === "/developers", `${label}: signing in redirects to /developers`, page.url());
  ok((await heading(page)) === `Hello, ${email}`, `${label}: the dashboard greets ${email}`, await heading(page));
}

async function balance(page) {
  return (await page.locator("#balance").textContent({ timeout: STEP_MS })).trim();
}

/** Reloads /developers until `ready(page)` holds (the read models may lag), at most ~5 s. */
async function reloadUntil(page, ready) {
  for (let n = 0; n < 25; n += 1) {
    await page.goto(`${base}/developers`);
    if (await ready(page)) return true;
    await page.waitForTimeout(200);
  }
  return false;
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox"],
  });
  try {
    await flow(browser);
    await withoutJavaScript(browser);
  } catch (error) {
    report(error);
    await capture();
    throw error;
  } finally {
    await browser.close();
  }
}

let reported = false;
function report(error) {
  if (reported) return;
  reported = true;
  console.error(`not ok ${numbered + 1} - ${error instanceof CheckFailed ? error.message : error.stack}`);
}

/** What the failing page showed: its address, status, main content and a screenshot. */
async function capture() {
  if (!current || current.isClosed()) return;
  try {
    console.error(`  page: ${current.url()} (last document status ${lastStatus})`);
    const html = await current.content();
    const start = html.indexOf("<main");
    const body = start >= 0 ? html.slice(start, html.indexOf("</main>") + 7) : html;
    console.error(`  html: ${body.replace(/\s+/g, " ").slice(0, 1500)}`);
    await current.screenshot({ path: join(shots, "failure.png"), fullPage: true });
    console.error(`  screenshot: ${join(shots, "failure.png")}`);
  } catch (inner) {
    console.error(`  (could not capture the page: ${inner.message})`);
  }
}

async function flow(browser) {
  const context = await browser.newContext({ viewport: WIDE });
  const page = track(await context.newPage());
  current = page;
  // Fixed addresses (each run has a new ledger), so every run lays out the same pages.
  const email = "developer@example.test";

  // The sign-in page: labelled, reachable by keyboard, readable.
  await page.goto(`${base}/developers`);
  ok(lastStatus === 200, "GET /developers answers 200", lastStatus);
  ok((await heading(page)) === "Sign in", 'the signed-out page is "Sign in"', await heading(page));
  await everyInputLabelled(page, "sign-in page");
  ok((await page.getByLabel("Email address").count()) === 1, 'getByLabel("Email address") finds the field');
  let tabs = 0;
  for (; tabs < 10; tabs += 1) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(() => document.activeElement?.id === "email")) break;
  }
  ok(tabs < 10, `Tab reaches the email field (after ${tabs + 1} presses)`);
  ok(
    (await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle)) !== "none",
    "the focused email field shows a focus outline",
  );
  await contrastAA(page, "sign-in page");
  await shot(page, "sign-in");
  await narrow(page, "sign-in");

  // A link, by mail.
  await askForLink(page, email, "sign-in");
  await shot(page, "link-sent");
  const link = await linkFromMail(email, "sign-in");

  // Confirming it.
  await confirmLink(page, link, email, "sign-in");
  await contrastAA(page, "confirmation page");
  await shot(page, "confirm");
  await signIn(page, link, email, "sign-in");

  // The dashboard: no points yet.
  await everyInputLabelled(page, "dashboard");
  ok((await page.getByLabel("New key name").count()) === 1, 'getByLabel("New key name") finds the field');
  ok((await balance(page)) === "0 points", "a new account has 0 points", await balance(page));
  const main = await page.locator("main").textContent();
  ok((await page.getByRole("button", { name: "Buy starter" }).count()) === 1 && (await page.locator("h2#credits").count()) === 1, "the buy-points table is there, with a Buy button per pack");
  ok((await page.locator("#usage-table").count()) === 1 && (await page.locator("svg[role=img]").count()) >= 3, "the usage charts (calls, points, balance) and table are there");
  ok((await page.getByRole("button", { name: "Sign out", exact: true }).count()) === 1, 'a "Sign out" button is there');
  await contrastAA(page, "dashboard");
  await shot(page, "dashboard-new");

  // Buying the starter pack through the Stripe stand-in's checkout page.
  await submit(page, page.getByRole("button", { name: "Buy starter" }));
  ok(new URL(page.url()).pathname.startsWith("/pay/"), "buying a pack opens the checkout page", page.url());
  ok((await heading(page)) === "Test checkout", "the checkout page shows", await heading(page));
  await shot(page, "checkout");
  await submit(page, page.getByRole("button", { name: "Pay" }));
  ok(new URL(page.url()).pathname === "/developers", "paying returns to the developer page", page.url());
  ok(/Thank you/.test(await page.locator("main").textContent()), "the page thanks the buyer");
  ok(await reloadUntil(page, async (p) => (await balance(p)) === "1000 points"), "after paying the balance shows 1000 points", await balance(page));
  await shot(page, "dashboard-topped-up");

  // A key.
  await page.getByLabel("New key name").fill("browser-suite");
  await submit(page, page.getByRole("button", { name: "Create key" }));
  ok(lastStatus === 200, "creating a key answers 200", lastStatus);
  ok((await heading(page)) === "Your new API key", 'the page says "Your new API key"', await heading(page));
  const key = (await page.locator("code#secret").textContent()).trim();
  ok(/^svc_ak_\S+$/.test(key), "the key is shown once, svc_ak_…", key.slice(0, 12));
  ok(await page.locator("#copy").isVisible(), "with JavaScript on, the copy button shows");
  await contrastAA(page, "key page");
  await shot(page, "key-created");
  await narrow(page, "key-created");

  // Spending it.
  const paid = await callApi(key);
  ok(paid.status === 200, "the key reads /api/v1/learnables?query=taberu (200)", `${paid.status} ${paid.text.slice(0, 300)}`);
  ok(paid.body?.data?.billing?.points_charged === 5, "the read charged 5 points", JSON.stringify(paid.body?.data?.billing));

  // The dashboard follows: 95 points, today's row, the key's use.
  const today = new Date().toISOString().slice(0, 10);
  const moved = await reloadUntil(page, async (p) => {
    const row = await p.locator("#usage-table tbody tr", { hasText: today }).count();
    return (await balance(p)) === "995 points" && row === 1;
  });
  ok((await balance(page)) === "995 points", "after the call the balance shows 995 points", await balance(page));
  const row = (await page.locator("#usage-table tbody tr", { hasText: today }).allTextContents()).join(" | ");
  ok(moved, `the usage table shows today's row (${today})`, (await page.locator("#usage-table").textContent()).replace(/\s+/g, " "));
  const cells = await page.locator("#usage-table tbody tr", { hasText: today }).locator("td").allTextContents();
  ok(cells[1]?.trim() === "1" && cells[2]?.trim() === "5", "today's row counts 1 call and 5 points", row);
  const bars = await page.locator("svg[aria-labelledby=calls-title] rect").evaluateAll((rects) => rects.filter((r) => Number(r.getAttribute("height")) > 0).length);
  ok(bars === 1, "the calls chart draws one bar", bars);
  const keyChart = await page.locator("svg[role=img] title", { hasText: "Calls per day with the key “browser-suite”" }).count();
  ok(keyChart === 1, "a calls chart for the key", keyChart);
  const keyPoints = await page.locator("svg[role=img] title", { hasText: "Points spent per day with the key “browser-suite”" }).count();
  ok(keyPoints === 1, "a points chart for the key", keyPoints);
  const keyRow = page.locator("tbody tr", { hasText: "browser-suite" });
  ok((await keyRow.count()) === 1, 'the keys table lists "browser-suite"');
  const keyCells = async () => (await keyRow.locator("td").allTextContents()).map((cell) => cell.trim());
  ok((await keyCells())[5] === "active", "the key is active", (await keyCells()).join(" | "));
  ok((await keyCells())[4] === "1", "the key counts 1 call today", (await keyCells()).join(" | "));
  await shot(page, "dashboard-usage");
  await narrow(page, "dashboard-usage");

  // Revoking it.
  await submit(page, page.getByRole("button", { name: "Revoke key browser-suite" }));
  ok(lastStatus === 200, "revoking lands on a 200 page", lastStatus);
  ok(new URL(page.url()).searchParams.get("notice") === "revoked", "revoking redirects with ?notice=revoked", page.url());
  const status = (await page.getByRole("status").allTextContents()).join(" ");
  ok(/revoked/.test(status), "a notice says the key is revoked", status);
  ok((await keyCells())[5] === "revoked", 'the key\'s state is "revoked"', (await keyCells()).join(" | "));
  ok((await page.getByRole("button", { name: "Revoke key browser-suite" }).count()) === 0, "a revoked key has no Revoke button");
  await shot(page, "revoked");
  const refused = await callApi(key);
  ok(refused.status === 401, "the revoked key is refused (401)", `${refused.status} ${refused.text.slice(0, 300)}`);

  // Signing out; the used link stays used.
  await submit(page, page.getByRole("button", { name: "Sign out", exact: true }));
  ok(lastStatus === 200, "signing out lands on a 200 page", lastStatus);
  ok((await heading(page)) === "Sign in", "after signing out the sign-in form shows", await heading(page));
  await shot(page, "signed-out");

  // The documentation a developer starts from: the guide and examples from the dataset.
  const docs = await page.goto(`${base}/docs`);
  ok(docs.status() === 200, "/docs answers 200", docs.status());
  ok((await page.locator("h2#quickstart").count()) === 1, "/docs has a quickstart");
  ok((await page.locator("details summary", { hasText: "Example" }).count()) >= 6, "/docs shows examples from the dataset");
  ok(!/`[a-z_]+`/.test(await page.locator("main, body").first().textContent()), "/docs renders Markdown (no raw backticks)");
  await shot(page, "docs");
  await narrow(page, "docs");
  await page.goto(link);
  ok(lastStatus === 410, "the used link answers 410", lastStatus);
  ok(/already used/.test(await page.locator("main").textContent()), 'the used link\'s page says "already used"');
  ok((await page.getByRole("alert").count()) === 1, "the refusal is announced (role=alert)");
  await contrastAA(page, "used-link page");
  await shot(page, "link-reused");
  await context.close();
}

async function withoutJavaScript(browser) {
  const context = await browser.newContext({ viewport: WIDE, javaScriptEnabled: false });
  const page = track(await context.newPage());
  current = page;
  const email = "no-script@example.test";
  await askForLink(page, email, "no JS");
  const link = await linkFromMail(email, "no JS");
  await confirmLink(page, link, email, "no JS");
  await signIn(page, link, email, "no JS");
  await page.getByLabel("New key name").fill("no-script");
  await submit(page, page.getByRole("button", { name: "Create key" }));
  ok((await heading(page)) === "Your new API key", "no JS: a key can be created");
  ok(/^svc_ak_/.test((await page.locator("code#secret").textContent()).trim()), "no JS: the key is shown");
  ok(!(await page.locator("#copy").isVisible()), "no JS: the copy button stays hidden");
  await shot(page, "nojs-key-created");
  await page.goto(`${base}/developers`);
  await submit(page, page.getByRole("button", { name: "Sign out", exact: true }));
  ok((await heading(page)) === "Sign in", "no JS: signing out works");
  await context.close();
}

try {
  await main();
  if (softFailures.length) {
    console.error(`portal_browser: the flow passed, but ${softFailures.length} page check(s) failed:`);
    for (const failure of softFailures) console.error(`  - ${failure}`);
    console.log(`portal_browser: ${passed} passed, ${softFailures.length} failed`);
    process.exit(1);
  }
  console.log(`portal_browser: ${passed} passed, 0 failed`);
} catch (error) {
  report(error);
  console.log(`portal_browser: ${passed} passed, ${softFailures.length + 1} failed`);
  process.exit(1);
}
