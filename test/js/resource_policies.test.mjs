// Resource-based policies (issue 19) through the AWS SDK for JavaScript v3, whose model knows
// PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy and CreateTable's ResourcePolicy:
// the shapes as the SDK sends and parses them, the modelled PolicyNotFoundException, and
// evaluation with a per-key policy file (--credentials, --policies).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import {
  CreateTableCommand, DeleteResourcePolicyCommand, DescribeTableCommand, GetItemCommand,
  GetResourcePolicyCommand, PolicyNotFoundException, PutItemCommand, PutResourcePolicyCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';

import { Server, rejection } from './helpers.mjs';

const ACCOUNT = '000000000000';
const ARN = `arn:aws:dynamodb:us-east-1:${ACCOUNT}:table/`;
const KEYS = { ADMIN: 'adminsecret', ALICE: 'alicesecret', READER: 'readersecret' };
const user = (key) => `arn:aws:iam::${ACCOUNT}:user/${key}`;
const doc = (...Statement) => JSON.stringify({ Version: '2012-10-17', Statement });

let server;
let confDir;
const clients = {};

before(async () => {
  confDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ttlstore-js-respol-'));
  fs.writeFileSync(path.join(confDir, 'credentials'),
    Object.entries(KEYS).map(([k, v]) => `${k} ${v}\n`).join(''));
  fs.writeFileSync(path.join(confDir, 'policies.json'), JSON.stringify({
    READER: [{ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: `${ARN}*` }],
  }));
  server = await Server.start({
    args: ['--credentials', path.join(confDir, 'credentials'),
      '--policies', path.join(confDir, 'policies.json')],
  });
  for (const [accessKeyId, secretAccessKey] of Object.entries(KEYS)) {
    clients[accessKeyId] = server.client({ credentials: { accessKeyId, secretAccessKey } });
  }
});

after(async () => {
  for (const c of Object.values(clients)) c.destroy();
  await server?.stop();
  if (confDir) fs.rmSync(confDir, { recursive: true, force: true });
});

let counter = 0;
async function createTable(extra = {}) {
  const TableName = `Music${process.pid}x${counter++}`;
  await clients.ADMIN.send(new CreateTableCommand({
    TableName, BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    ...extra,
  }));
  return TableName;
}

test('put, get and delete a table policy; revisions', async () => {
  const name = await createTable();
  const Policy = doc({ Effect: 'Allow', Principal: { AWS: user('BOB') }, Action: 'dynamodb:GetItem', Resource: ARN + name });
  const put = await clients.ADMIN.send(new PutResourcePolicyCommand({
    ResourceArn: ARN + name, Policy, ExpectedRevisionId: 'NO_POLICY',
  }));
  assert.match(put.RevisionId, /^[0-9]+$/);
  const got = await clients.ADMIN.send(new GetResourcePolicyCommand({ ResourceArn: ARN + name }));
  assert.equal(got.Policy, Policy);
  assert.equal(got.RevisionId, put.RevisionId);

  const stale = await rejection(clients.ADMIN.send(new PutResourcePolicyCommand({
    ResourceArn: ARN + name, Policy, ExpectedRevisionId: 'NO_POLICY',
  })));
  assert.ok(stale instanceof PolicyNotFoundException);
  assert.equal(stale.message, 'Resource-based policy not found for the provided ResourceArn: '
    + `Requested policy update expecting none to be present for table ${name}, but a policy `
    + `exists with revision id ${put.RevisionId}.`);

  // The SDK sends ConfirmRemoveSelfResourceAccess as a header; it is accepted.
  const put2 = await clients.ADMIN.send(new PutResourcePolicyCommand({
    ResourceArn: ARN + name, ExpectedRevisionId: put.RevisionId, ConfirmRemoveSelfResourceAccess: true,
    Policy: doc({
      Effect: 'Allow', Principal: '*', Action: 'dynamodb:*', Resource: ARN + name,
      Condition: { StringEquals: { 'aws:PrincipalAccount': '000000000000' } },
    }),
  }));
  assert.ok(BigInt(put2.RevisionId) > BigInt(put.RevisionId));

  // Block Public Access: an Allow to everyone, unnarrowed, is refused.
  const open = await rejection(clients.ADMIN.send(new PutResourcePolicyCommand({
    ResourceArn: ARN + name,
    Policy: doc({ Effect: 'Allow', Principal: '*', Action: 'dynamodb:*', Resource: ARN + name }),
  })));
  assert.equal(open.name, 'ValidationException');
  assert.match(open.message, /public access/);

  const del = await clients.ADMIN.send(new DeleteResourcePolicyCommand({ ResourceArn: ARN + name }));
  assert.equal(del.RevisionId, put2.RevisionId);
  const none = await rejection(clients.ADMIN.send(new GetResourcePolicyCommand({ ResourceArn: ARN + name })));
  assert.ok(none instanceof PolicyNotFoundException);
  assert.equal(none.message, `Resource-based policy not found for the provided ResourceArn: ${ARN}${name}`);

  const missing = await rejection(clients.ADMIN.send(new GetResourcePolicyCommand({ ResourceArn: `${ARN}${name}zz` })));
  assert.ok(missing instanceof ResourceNotFoundException);
  assert.equal(missing.message, `Requested resource not found: Table: ${name}zz not found`);
});

test('a resource-policy deny refuses a key, an allow adds to a restricted key', async () => {
  const name = await createTable();
  await clients.ADMIN.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'a' } } }));
  await clients.ADMIN.send(new PutResourcePolicyCommand({
    ResourceArn: ARN + name,
    Policy: doc(
      { Effect: 'Deny', Principal: { AWS: user('ALICE') }, Action: 'dynamodb:GetItem', Resource: ARN + name },
      { Effect: 'Allow', Principal: { AWS: [user('READER')] }, Action: 'dynamodb:PutItem', Resource: ARN + name },
    ),
  }));
  const err = await rejection(clients.ALICE.send(new GetItemCommand({ TableName: name, Key: { pk: { S: 'a' } } })));
  assert.equal(err.name, 'AccessDeniedException');
  assert.equal(err.message, `User: ${user('ALICE')} is not authorized to perform: dynamodb:GetItem `
    + `on resource: ${ARN}${name} with an explicit deny in a resource-based policy`);
  // READER's identity policy allows only GetItem; the resource policy adds PutItem.
  await clients.READER.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'r' } } }));
  const got = await clients.READER.send(new GetItemCommand({ TableName: name, Key: { pk: { S: 'r' } } }));
  assert.deepEqual(got.Item, { pk: { S: 'r' } });
});

test('CreateTable with ResourcePolicy; DescribeTable does not show it', async () => {
  const Policy = doc({ Effect: 'Deny', Principal: '*', Action: 'dynamodb:PutItem', Resource: '*' });
  const name = await createTable({ ResourcePolicy: Policy });
  const got = await clients.ADMIN.send(new GetResourcePolicyCommand({ ResourceArn: ARN + name }));
  assert.equal(got.Policy, Policy);
  const described = await clients.ADMIN.send(new DescribeTableCommand({ TableName: name }));
  assert.ok(!JSON.stringify(described).includes('ResourcePolicy'));
  const err = await rejection(clients.ADMIN.send(new PutItemCommand({ TableName: name, Item: { pk: { S: 'x' } } })));
  assert.equal(err.name, 'AccessDeniedException');
  assert.match(err.message, /with an explicit deny in a resource-based policy$/);
});
