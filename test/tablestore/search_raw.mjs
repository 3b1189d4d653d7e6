// Search requests the Node SDK cannot send (the Java, Go and Python SDKs' fields it lacks:
// Sort.disable_default_pk_sorter, SearchQuery.track_total_count and filter,
// DescribeSearchIndexRequest.include_sync_stat, UpdateSearchIndexRequest's schema changes,
// the split and fuzzy analyzers' case_sensitive): protobuf written by hand from the field numbers
// of the SDKs' search.proto, signed as the SDKs sign, and the responses decoded by the SDK's own
// decoders where it has one.
import { TableStore, decodeOtsError, signedPost } from './helpers.mjs';

// Protobuf wire encoding. Varints take numbers or BigInts (negative int32 as 10 bytes).
export function varint(n) {
  let v = BigInt.asUintN(64, BigInt(n));
  const out = [];
  while (v >= 0x80n) { out.push(Number(v & 0x7fn) | 0x80); v >>= 7n; }
  out.push(Number(v));
  return Buffer.from(out);
}
export const pbVarint = (field, n) => Buffer.concat([varint(field * 8), varint(n)]);
export const pbBytes = (field, b) => {
  const buf = Buffer.isBuffer(b) ? b : Buffer.from(b, 'utf8');
  return Buffer.concat([varint(field * 8 + 2), varint(buf.length), buf]);
};
export const msg = (...parts) => Buffer.concat(parts);

// Values as the SDKs write terms: type byte, then little-endian bytes (strings length-prefixed).
export function strValue(s) {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(b.length);
  return Buffer.concat([Buffer.from([3]), len, b]);
}

// Query { 1 type, 2 bytes of the type's message }.
export const QT = { MATCH: 1, TERM: 3, MATCH_ALL: 11 };
export const query = (type, body = Buffer.alloc(0)) => msg(pbVarint(1, type), pbBytes(2, body));
export const matchAll = () => query(QT.MATCH_ALL);
export const term = (field, value) => query(QT.TERM, msg(pbBytes(1, field), pbBytes(2, value)));
// Sorter { 1 FieldSort { 1 field_name, 2 order } }.
export const fieldSorter = (field, order = 0) =>
  pbBytes(1, pbBytes(1, msg(pbBytes(1, field), pbVarint(2, order))));

// POST an action; resolves to { status, body } (body: the raw response bytes).
export async function raw(server, action, body) {
  return signedPost(server.port, action, body);
}

// The top-level fields of a message: [{ field, wire, value }] (value: a Number or BigInt for
// varints, a Buffer for length-delimited fields).
export function fields(buf) {
  const out = [];
  let i = 0;
  const readVarint = () => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++];
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
    }
  };
  while (i < buf.length) {
    const key = Number(readVarint());
    const field = key >> 3;
    const wire = key & 7;
    if (wire === 0) {
      out.push({ field, wire, value: readVarint() });
    } else if (wire === 2) {
      const len = Number(readVarint());
      out.push({ field, wire, value: buf.subarray(i, i + len) });
      i += len;
    } else if (wire === 1) {
      out.push({ field, wire, value: buf.subarray(i, i + 8) });
      i += 8;
    } else {
      throw new Error(`wire type ${wire}`);
    }
  }
  return out;
}

// Search with a hand-built SearchQuery; returns the SDK's decoded response or the error, and
// `body`, the raw response.
export async function rawSearch(server, tableName, indexName, searchQuery, { returnType = 3 } = {}) {
  const body = msg(pbBytes(1, tableName), pbBytes(2, indexName), pbBytes(3, pbVarint(1, returnType)),
    pbBytes(4, searchQuery));
  const res = await raw(server, 'Search', body);
  if (res.status !== 200) return { status: res.status, error: decodeOtsError(res.body) };
  return { status: 200, body: res.body, ...TableStore.decoder.decodeSearch(res.body) };
}
