// What the stream tests share (streams.test.mjs, stream_origin.test.mjs): the four stream
// operations registered with the official Node SDK's request pipeline, and a PlainBuffer reader
// for stream records.
//
// The Node SDK (5.6) carries the stream messages in its compiled protocol but no client methods
// for them: the four operations are registered here with the SDK's own encoder and decoder at run
// time (the SDK's files are unchanged), so the calls still go through the SDK's request pipeline
// (signing, MD5, HTTP). GetStreamRecord's response is decoded with the protocol's message as the
// Go and Java SDKs have it (its compiled one lacks StreamRecord.origin_record, field 3). Its
// PlainBuffer reader cannot read cell op types (TAG_CELL_TYPE) or the sequence-info extension
// that stream records carry, so records are decoded by readRecord below, which checks every cell
// and row checksum as the Java SDK's reader does.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const tsProtos = require('tablestore/lib/protocol/tablestore_compiled_proto.js').main.proto;
const TableStore = require('tablestore');
const protobuf = require('protobufjs');

// GetStreamRecordResponse as the Go SDK's table_store.proto has it (origin_record included).
const streamProtos = protobuf.parse(`
  syntax = "proto2";
  package s;
  message StreamRecord {
    required int32 action_type = 1;
    required bytes record = 2;
    optional bytes origin_record = 3;
  }
  message GetStreamRecordResponse {
    repeated StreamRecord stream_records = 1;
    optional string next_shard_iterator = 2;
  }
`).root;

const OPS = {
  listStream: [tsProtos.ListStreamRequest, tsProtos.ListStreamResponse],
  describeStream: [tsProtos.DescribeStreamRequest, tsProtos.DescribeStreamResponse],
  getShardIterator: [tsProtos.GetShardIteratorRequest, tsProtos.GetShardIteratorResponse],
  getStreamRecord: [tsProtos.GetStreamRecordRequest, streamProtos.lookupType('s.GetStreamRecordResponse')],
};
{
  const encode = TableStore.encoder.encode;
  TableStore.encoder.encode = function (operation, params) {
    if (!OPS[operation]) return encode.call(this, operation, params);
    return OPS[operation][0].create(params);
  };
  const decode = TableStore.decoder.decode;
  TableStore.decoder.decode = function (operation, buffers) {
    if (!OPS[operation]) return decode.call(this, operation, buffers);
    return OPS[operation][1].decode(buffers);
  };
}
export const call = (client, op, params) => client.makeRequest(op, params);

// ---- a PlainBuffer reader for stream records ------------------------------------------------

const CRC_TABLE = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i += 1) {
    let x = i;
    for (let j = 0; j < 8; j += 1) x = (x & 0x80) ? ((x << 1) ^ 0x07) & 0xff : (x << 1) & 0xff;
    t[i] = x;
  }
  return t;
})();
const crcBytes = (crc, bytes) => { for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff]; return crc; };

// One stream record: {pk: [[name, value]], columns: [{name, value, op, ts}], deleteMarker, seq}.
// Integers come back as BigInt, strings as strings; op is 'PUT', 'DELETE_ONE' or 'DELETE_ALL'.
export function readRecord(buf) {
  let i = 0;
  const u8 = () => buf[i++];
  const u32 = () => { const v = buf.readUInt32LE(i); i += 4; return v; };
  const i64 = () => { const v = buf.readBigInt64LE(i); i += 8; return v; };
  assert.equal(u32(), 0x75, 'PlainBuffer header');
  const readCell = () => {
    assert.equal(u8(), 0x04, 'TAG_CELL_NAME');
    const start = i;
    const nameLen = u32();
    const name = buf.subarray(i, i + nameLen).toString('utf8');
    i += nameLen;
    let crc = crcBytes(0, Buffer.from(name, 'utf8'));
    void start;
    const cell = { name, value: undefined, op: 'PUT', ts: undefined };
    let tag = u8();
    if (tag === 0x05) {  // value: u32 length, type, payload
      u32();
      const type = u8();
      const from = i - 1;
      if (type === 0x00) cell.value = i64();
      else if (type === 0x03 || type === 0x07) {
        const n = u32();
        const bytes = buf.subarray(i, i + n);
        i += n;
        cell.value = type === 0x03 ? bytes.toString('utf8') : Buffer.from(bytes);
      } else if (type === 0x02) cell.value = u8() === 1;
      else if (type === 0x01) { cell.value = buf.readDoubleLE(i); i += 8; }
      else assert.fail(`unexpected value type ${type}`);
      crc = crcBytes(crc, buf.subarray(from, i));
      tag = u8();
    }
    let op = null;
    if (tag === 0x06) {
      op = u8();
      cell.op = op === 0x01 ? 'DELETE_ALL' : op === 0x03 ? 'DELETE_ONE' : `op${op}`;
      tag = u8();
    }
    if (tag === 0x07) {
      const tsStart = i;
      cell.ts = Number(i64());
      crc = crcBytes(crc, buf.subarray(tsStart, i));
      tag = u8();
    }
    if (op !== null) crc = CRC_TABLE[(crc ^ op) & 0xff];
    assert.equal(tag, 0x0a, 'TAG_CELL_CHECKSUM');
    assert.equal(u8(), crc, `cell checksum of ${name}`);
    return { cell, crc };
  };
  const out = { pk: [], columns: [], deleteMarker: false, seq: null };
  let rowCrc = 0;
  let tag = u8();
  if (tag === 0x01) {
    tag = u8();
    while (tag === 0x03) {
      const { cell, crc } = readCell();
      out.pk.push([cell.name, cell.value]);
      rowCrc = CRC_TABLE[(rowCrc ^ crc) & 0xff];
      tag = u8();
    }
  }
  if (tag === 0x02) {
    tag = u8();
    while (tag === 0x03) {
      const { cell, crc } = readCell();
      out.columns.push(cell);
      rowCrc = CRC_TABLE[(rowCrc ^ crc) & 0xff];
      tag = u8();
    }
  }
  if (tag === 0x08) {
    out.deleteMarker = true;
    tag = u8();
  }
  rowCrc = CRC_TABLE[(rowCrc ^ (out.deleteMarker ? 1 : 0)) & 0xff];
  if (tag === 0x0b) {  // the extension: sequence info (Go SDK readRowExtension's layout)
    assert.equal(u32(), 24, 'extension length');
    assert.equal(u8(), 0x0c, 'TAG_SEQ_INFO');
    assert.equal(u32(), 19, 'sequence info length');
    assert.equal(u8(), 0x0d);
    const epoch = u32();
    assert.equal(u8(), 0x0e);
    const ts = Number(i64());
    assert.equal(u8(), 0x0f);
    const rowIndex = u32();
    out.seq = { epoch, ts, rowIndex };
    tag = u8();
  }
  assert.equal(tag, 0x09, 'TAG_ROW_CHECKSUM');
  assert.equal(u8(), rowCrc, 'row checksum');
  assert.equal(i, buf.length, 'one row, nothing after it');
  return out;
}

export const ACTION = { 1: 'PUT_ROW', 2: 'UPDATE_ROW', 3: 'DELETE_ROW' };

// Every record of the stream's shards from their start, with limit `limit` per call.
export async function readAll(client, streamId, { limit } = {}) {
  const desc = await call(client, 'describeStream', { streamId });
  const records = [];
  for (const shard of desc.shards) {
    const it = await call(client, 'getShardIterator', { streamId, shardId: shard.shardId });
    let iterator = it.shardIterator;
    for (let n = 0; n < 1000 && iterator; n += 1) {
      const params = { shardIterator: iterator };
      if (limit) params.limit = limit;
      const page = await call(client, 'getStreamRecord', params);
      if (limit) assert.ok(page.streamRecords.length <= limit, 'a page holds at most `limit` records');
      for (const r of page.streamRecords) {
        const record = { action: ACTION[r.actionType], ...readRecord(Buffer.from(r.record)) };
        // origin_record, when present: the key and the origin columns' values before the write.
        if (r.originRecord && r.originRecord.length > 0) record.origin = readRecord(Buffer.from(r.originRecord));
        records.push(record);
      }
      if (page.streamRecords.length === 0) break;  // the open shard: caught up
      iterator = page.nextShardIterator;
    }
  }
  return records;
}

// A record without its sequence info, for deepEqual.
export const strip = ({ seq, ...rest }) => rest;
export const put = (name, value, ts) => ({ name, value, op: 'PUT', ts });

export async function describeTable(client, tableName) {
  return client.describeTable({ tableName });
}

export async function enableStream(client, tableName, expirationTime = 24) {
  return client.updateTable({
    tableName, tableOptions: {}, streamSpecification: { enableStream: true, expirationTime },
  });
}

