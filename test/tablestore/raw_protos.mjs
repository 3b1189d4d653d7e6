// Protocol messages the official Node SDK (5.6) cannot send or read, for the raw end-to-end
// tests (stream_origin.test.mjs, update_full_row.test.mjs): the table messages with the fields
// its compiled protocol lacks (TableOptions.update_full_row, StreamSpecification.columns_to_get,
// StreamDetails.columns_to_get), written from the field numbers of the Go and Java SDKs'
// table_store.proto. rawCall signs the request as the SDKs do (helpers.mjs signedPost) and
// decodes the answer as the Go SDK does: the response message on 200, the Error message else.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import { decodeOtsError, signedPost } from './helpers.mjs';

const require = createRequire(import.meta.url);
const protobuf = require('protobufjs');

export const raw = protobuf.parse(`
  syntax = "proto2";
  package r;
  message PrimaryKeySchema { required string name = 1; required int32 type = 2; optional int32 option = 3; }
  message TableMeta { required string table_name = 1; repeated PrimaryKeySchema primary_key = 2; }
  message TableOptions {
    optional int32 time_to_live = 1;
    optional int32 max_versions = 2;
    optional int64 deviation_cell_version_in_sec = 5;
    optional bool allow_update = 6;
    optional bool update_full_row = 7;
  }
  message CapacityUnit { optional int32 read = 1; optional int32 write = 2; }
  message ReservedThroughput { required CapacityUnit capacity_unit = 1; }
  message StreamSpecification {
    required bool enable_stream = 1;
    optional int32 expiration_time = 2;
    repeated string columns_to_get = 3;
  }
  message StreamDetails {
    required bool enable_stream = 1;
    optional string stream_id = 2;
    optional int32 expiration_time = 3;
    optional int64 last_enable_time = 4;
    repeated string columns_to_get = 5;
  }
  message CreateTableRequest {
    required TableMeta table_meta = 1;
    required ReservedThroughput reserved_throughput = 2;
    optional TableOptions table_options = 3;
    optional StreamSpecification stream_spec = 5;
  }
  message CreateTableResponse {}
  message UpdateTableRequest {
    required string table_name = 1;
    optional ReservedThroughput reserved_throughput = 2;
    optional TableOptions table_options = 3;
    optional StreamSpecification stream_spec = 4;
  }
  message UpdateTableResponse {
    optional TableOptions table_options = 2;
    optional StreamDetails stream_details = 3;
  }
  message DescribeTableRequest { required string table_name = 1; }
  message DescribeTableResponse {
    required TableMeta table_meta = 1;
    required TableOptions table_options = 3;
    optional StreamDetails stream_details = 5;
  }
`).root;

const TYPES = {
  CreateTable: ['r.CreateTableRequest', 'r.CreateTableResponse'],
  UpdateTable: ['r.UpdateTableRequest', 'r.UpdateTableResponse'],
  DescribeTable: ['r.DescribeTableRequest', 'r.DescribeTableResponse'],
};

// The decoded response ({ status: 200, body }) or error ({ status, error: { code, message } }).
export async function rawCall(port, action, message) {
  const [reqName, respName] = TYPES[action];
  const reqType = raw.lookupType(reqName);
  assert.equal(reqType.verify(message), null, `${action} request shape`);
  const body = Buffer.from(reqType.encode(reqType.create(message)).finish());
  const res = await signedPost(port, action, body);
  if (res.status !== 200) return { status: res.status, error: decodeOtsError(res.body) };
  // Fields absent on the wire stay absent (the Go SDK dereferences update_full_row: it must be
  // sent); repeated fields are [] when empty.
  const respType = raw.lookupType(respName);
  return { status: 200, body: respType.toObject(respType.decode(res.body), { longs: Number, arrays: true }) };
}

// A CreateTable with one STRING key column `pk`, and what else `extra` sets (tableOptions,
// streamSpec).
export function createTableMessage(tableName, extra = {}) {
  return {
    tableMeta: { tableName, primaryKey: [{ name: 'pk', type: 2 }] },
    reservedThroughput: { capacityUnit: { read: 0, write: 0 } },
    tableOptions: { timeToLive: -1, maxVersions: 1, ...(extra.tableOptions ?? {}) },
    ...(extra.streamSpec ? { streamSpec: extra.streamSpec } : {}),
  };
}

export async function expectRawError(promise, status, code, message) {
  const res = await promise;
  assert.equal(res.status, status, `status of ${JSON.stringify(res.error ?? res.body)}`);
  assert.equal(res.error.code, code);
  if (message instanceof RegExp) assert.match(res.error.message, message);
  else assert.equal(res.error.message, message);
}
