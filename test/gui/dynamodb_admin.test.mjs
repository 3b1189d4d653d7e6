// The dynamodb-admin web GUI (npm `dynamodb-admin`) against ttlstore, in Debian's Chromium run
// headless by puppeteer-core (issue 18).
//
// One ttlstore (with a credentials file), one dynamodb-admin pointed at it, one Chromium, all on
// 127.0.0.1 and all stopped by PID at the end. The steps run in order, as a person would click:
// the table list, a table's items, its TTL page, then an item edited in the GUI's Ace editor and
// saved; what was saved is read back from ttlstore with the AWS SDK. Each step leaves a
// screenshot in a temp dir whose path the test prints (kept; the data dirs are removed).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
  CreateTableCommand, GetItemCommand, PutItemCommand, UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import puppeteer from 'puppeteer-core';

import {
  CHROMIUM_BIN, ddbClient, makeTempDir, startDynamodbAdmin, startTtlstore,
} from './helpers.mjs';

const PAGE_TIMEOUT_MS = 15000;
const BROWSER_CLOSE_TIMEOUT_MS = 10000;

// Ten days ahead: the item stays while the test runs, and its TTL attribute must survive the
// GUI's read-edit-write round trip unchanged.
const EXPIRES_AT = Math.floor(Date.now() / 1000) + 10 * 86400;

const ORDERS = 'Orders';
const USERS = 'Users';

const ORDER_ITEMS = [
  {
    customer: { S: 'alice' }, orderId: { S: 'o-1' }, status: { S: 'pending' },
    total: { N: '42.5' }, expiresAt: { N: String(EXPIRES_AT) },
  },
  {
    customer: { S: 'alice' }, orderId: { S: 'o-2' }, status: { S: 'delivered' },
    total: { N: '7' }, lines: { L: [{ M: { sku: { S: 'pen' }, qty: { N: '3' } } }] },
  },
  {
    customer: { S: 'bob' }, orderId: { S: 'o-3' }, status: { S: 'pending' },
    total: { N: '1200' }, gift: { BOOL: true },
  },
];
const USER_ITEMS = [
  { userId: { S: 'u-1' }, name: { S: 'Alice Liddell' }, active: { BOOL: true } },
  { userId: { S: 'u-2' }, name: { S: 'Bob Carol' }, tags: { SS: ['admin', 'ops'] } },
];

async function seed(ddb) {
  await ddb.send(new CreateTableCommand({
    TableName: ORDERS,
    AttributeDefinitions: [
      { AttributeName: 'customer', AttributeType: 'S' },
      { AttributeName: 'orderId', AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: 'customer', KeyType: 'HASH' },
      { AttributeName: 'orderId', KeyType: 'RANGE' },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  }));
  await ddb.send(new UpdateTimeToLiveCommand({
    TableName: ORDERS,
    TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
  }));
  await ddb.send(new CreateTableCommand({
    TableName: USERS,
    AttributeDefinitions: [{ AttributeName: 'userId', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'userId', KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
  }));
  for (const Item of ORDER_ITEMS) await ddb.send(new PutItemCommand({ TableName: ORDERS, Item }));
  for (const Item of USER_ITEMS) await ddb.send(new PutItemCommand({ TableName: USERS, Item }));
}

// Races `promise` against a timer so that no browser call can hang the test.
async function bounded(what, promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('dynamodb-admin web GUI against ttlstore, in headless Chromium', { timeout: 90000 }, () => {
  let root;
  let shotDir;
  let ttlstore;
  let admin;
  let ddb;
  let browser;
  let browserPid;
  let page;
  const pageErrors = [];       // uncaught exceptions in the page
  const failedResponses = [];  // HTTP 4xx/5xx answers the page received
  const blocked = [];          // requests that would have left 127.0.0.1

  async function shot(name) {
    const file = path.join(shotDir, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  }

  // The text of each cell of each row of the items table, in the order of the header
  // (#actions-row): values are shown as JSON, so strings keep their quotes.
  function itemRows() {
    return page.$$eval('#items-container tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.innerText.trim())));
  }

  // The GUI shows an error from the server (a failed DynamoDB call) in #error-wrapper.
  async function assertNoGuiError() {
    const text = await page.$eval('#error-wrapper', (el) => el.innerText.trim()).catch(() => '');
    assert.equal(text, '', `the GUI shows an error: ${text}`);
  }

  before(async () => {
    root = makeTempDir('ttlstore-gui-');
    shotDir = makeTempDir('ttlstore-gui-screens-');
    ttlstore = await startTtlstore(root);
    ddb = ddbClient(ttlstore.endpoint);
    await seed(ddb);
    admin = await startDynamodbAdmin(root, ttlstore.endpoint);

    browser = await bounded('launching Chromium', puppeteer.launch({
      executablePath: CHROMIUM_BIN,
      headless: true,  // puppeteer passes --headless=new
      pipe: true,      // DevTools over a pipe: Chromium opens no debugging port
      userDataDir: path.join(root, 'chromium-profile'),
      // CI runs as root, where Chromium's sandbox cannot start.
      args: ['--no-sandbox', '--disable-gpu', '--window-size=1280,900'],
      defaultViewport: { width: 1280, height: 900 },
      timeout: PAGE_TIMEOUT_MS,
      protocolTimeout: PAGE_TIMEOUT_MS,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    }), 2 * PAGE_TIMEOUT_MS);
    browserPid = browser.process()?.pid;
    page = await browser.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    page.setDefaultNavigationTimeout(PAGE_TIMEOUT_MS);
    page.on('pageerror', (err) => pageErrors.push(String(err)));
    page.on('response', (res) => {
      // dynamodb-admin ships no favicon; the browser asks for one anyway.
      if (res.status() >= 400 && !res.url().endsWith('/favicon.ico')) failedResponses.push(`${res.status()} ${res.request().method()} ${res.url()}`);
    });
    // Everything the GUI needs is served by dynamodb-admin itself; nothing may leave loopback.
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      const url = req.url();
      if (url.startsWith(`${admin.url}/`) || url.startsWith('data:')) {
        req.continue();
      } else {
        blocked.push(url);
        req.abort();
      }
    });
  });

  after(async () => {
    const problems = [];
    if (browser) {
      try {
        await bounded('closing Chromium', browser.close(), BROWSER_CLOSE_TIMEOUT_MS);
      } catch (err) {
        problems.push(err);
      }
      // browser.close() waits for the process; should it not have exited, kill it by its PID.
      if (browserPid) {
        try { process.kill(browserPid, 'SIGKILL'); } catch { /* exited, as expected */ }
      }
    }
    for (const child of [admin, ttlstore]) {
      if (!child) continue;
      try {
        await child.stop();
      } catch (err) {
        problems.push(err);
      }
    }
    ddb?.destroy();
    if (root) fs.rmSync(root, { recursive: true, force: true });
    if (shotDir) console.log(`screenshots: ${shotDir}`);
    if (problems.length) throw problems[0];
  });

  it('lists the tables', async () => {
    await page.goto(`${admin.url}/`, { waitUntil: 'load' });
    await page.waitForSelector('#table-list');
    await shot('1-table-list');
    const rows = await page.$$eval('#table-list .list-group-item', (els) =>
      els.map((el) => ({ name: el.dataset.tableName, text: el.innerText })));
    assert.deepEqual(rows.map((r) => r.name).sort(), [ORDERS, USERS]);
    // Each row carries the table's ItemCount badge.
    const orders = rows.find((r) => r.name === ORDERS);
    assert.match(orders.text, new RegExp(`\\b${ORDER_ITEMS.length}\\b`), `Orders row: ${orders.text}`);
    await assertNoGuiError();
  });

  it("opens a table and shows its items", async () => {
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click(`#table-list .list-group-item[data-table-name="${ORDERS}"] a[href$="/tables/${ORDERS}"]`),
    ]);
    // The items are fetched after load and rendered into #items-container (or an error shown).
    await page.waitForFunction(() =>
      document.querySelectorAll('#items-container tr').length > 0 ||
      document.querySelector('#error-wrapper')?.innerText.trim() ||
      !document.querySelector('.no-results')?.classList.contains('d-none'));
    await shot('2-orders-items');
    await assertNoGuiError();
    const header = await page.$$eval('#actions-row th', (els) => els.map((el) => el.innerText.trim()));
    for (const column of ['customer', 'orderId', 'status', 'total', 'expiresAt']) {
      assert.ok(header.includes(column), `column ${column} in ${JSON.stringify(header)}`);
    }
    const rows = await itemRows();
    assert.equal(rows.length, ORDER_ITEMS.length, JSON.stringify(rows));
    const keys = rows.map((cells) => `${cells[header.indexOf('customer')]}/${cells[header.indexOf('orderId')]}`);
    assert.deepEqual(keys.sort(), ['"alice"/"o-1"', '"alice"/"o-2"', '"bob"/"o-3"']);
    const o1 = rows.find((cells) => cells[header.indexOf('orderId')] === '"o-1"');
    assert.equal(o1[header.indexOf('status')], '"pending"');
    assert.equal(o1[header.indexOf('total')], '42.5');
    assert.equal(o1[header.indexOf('expiresAt')], String(EXPIRES_AT));
    // The TTL attribute is shown as the number it is, with the GUI's "seconds since epoch" hint.
    const ttlTitle = await page.$eval('#items-container abbr[title*="seconds since epoch"]',
                                      (el) => el.getAttribute('title'));
    assert.ok(ttlTitle.startsWith(new Date(EXPIRES_AT * 1000).toISOString()), ttlTitle);
  });

  it("shows the table's TTL setting", async () => {
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click(`a.nav-link[href$="/tables/${ORDERS}/ttl"]`),
    ]);
    await shot('3-orders-ttl');
    await assertNoGuiError();
    const text = await page.$eval('main', (el) => el.innerText);
    assert.match(text, /ENABLED/, text);
    assert.match(text, /expiresAt/, text);
  });

  it('edits an item in the editor, saves it, and ttlstore has the change', async () => {
    await page.goto(`${admin.url}/tables/${ORDERS}`, { waitUntil: 'load' });
    await page.waitForSelector('#items-container tr');
    // The "View" link of the row alice/o-1 (cells show values as JSON: strings quoted).
    const viewHref = await page.$$eval('#items-container tr', (trs) => {
      const row = trs.find((tr) => {
        const cells = [...tr.querySelectorAll('td')].map((td) => td.innerText.trim());
        return cells.includes('"alice"') && cells.includes('"o-1"');
      });
      return row?.querySelector('a')?.getAttribute('href');
    });
    assert.ok(viewHref, 'a View link for alice/o-1');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click(`#items-container a[href="${viewHref}"]`),
    ]);
    await page.waitForSelector('#documentTextarea .ace_content');
    await shot('4-item-before-edit');
    const before = JSON.parse(await page.evaluate(() => editor.getValue()));
    assert.deepEqual(before, {
      customer: 'alice', orderId: 'o-1', status: 'pending', total: 42.5, expiresAt: EXPIRES_AT,
    });

    // Double-click the word `pending` where the editor draws it, and type over it: a person's edit.
    const at = await page.evaluate(() => {
      const lines = editor.getValue().split('\n');
      const row = lines.findIndex((line) => line.includes('"status"'));
      const column = lines[row].indexOf('pending') + 3;
      editor.renderer.scrollCursorIntoView({ row, column });
      const pos = editor.renderer.textToScreenCoordinates(row, column);
      return { x: pos.pageX, y: pos.pageY + editor.renderer.lineHeight / 2 };
    });
    await page.mouse.click(at.x, at.y, { count: 2 });
    assert.equal(await page.evaluate(() => editor.getSelectedText()), 'pending');
    await page.keyboard.type('shipped');
    await shot('5-item-edited');

    const saved = page.waitForResponse((res) =>
      res.request().method() === 'PUT' && res.url().includes(`/tables/${ORDERS}/items/`));
    await page.click('#saveButton');
    const response = await saved;
    assert.equal(response.status(), 200, await response.text());
    // The GUI loads what the server returned into the editor and turns the button green.
    await page.waitForSelector('#saveButton.btn-success');
    await shot('6-item-saved');
    await assertNoGuiError();
    const shown = JSON.parse(await page.evaluate(() => editor.getValue()));
    assert.equal(shown.status, 'shipped');

    const got = await ddb.send(new GetItemCommand({
      TableName: ORDERS,
      Key: { customer: { S: 'alice' }, orderId: { S: 'o-1' } },
      ConsistentRead: true,
    }));
    assert.deepEqual(got.Item, {
      customer: { S: 'alice' }, orderId: { S: 'o-1' }, status: { S: 'shipped' },
      total: { N: '42.5' }, expiresAt: { N: String(EXPIRES_AT) },
    });
  });

  it('saw no page errors, failed requests, requests beyond loopback or ttlstore errors', async () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(failedResponses, []);
    assert.deepEqual(blocked, []);
    // ttlstore logs every error response it sends; the GUI's calls should have caused none.
    const errors = ttlstore.log().split('\n').filter((line) => line.includes('event=request_error'));
    assert.deepEqual(errors, []);
  });
});
