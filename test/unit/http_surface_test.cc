// The DynamoDB service's HTTP surface as pure functions: response headers, CORS, and the
// decoding of compressed request bodies (server/service_headers.h, server/content_decoding.h).
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "server/content_decoding.h"
#include "server/service_headers.h"

namespace ttlstore::server {
namespace {

// Compresses `in` with zlib in the given format (window bits as for deflateInit2).
std::string Compress(const std::string& in, int window_bits) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out(deflateBound(&zs, in.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
std::string Gzip(const std::string& in) { return Compress(in, 16 + MAX_WBITS); }

constexpr size_t kLimit = 16u << 20;

TEST(ContentDecoding, NoEncodingOrIdentityIsPlain) {
  std::string out;
  EXPECT_EQ(DecodeContent("", "{}", kLimit, &out), Decoding::kPlain);
  EXPECT_EQ(DecodeContent("identity", "{}", kLimit, &out), Decoding::kPlain);
  EXPECT_EQ(DecodeContent(" Identity ", "{}", kLimit, &out), Decoding::kPlain);
}

TEST(ContentDecoding, GzipRoundTrip) {
  std::string body = R"({"TableName":"t","Item":{"p":{"S":"x"}}})";
  std::string out;
  ASSERT_EQ(DecodeContent("gzip", Gzip(body), kLimit, &out), Decoding::kDecoded);
  EXPECT_EQ(out, body);
  ASSERT_EQ(DecodeContent("GZIP", Gzip(body), kLimit, &out), Decoding::kDecoded);
  EXPECT_EQ(out, body);
}

TEST(ContentDecoding, ConcatenatedGzipMembersAreOneBody) {
  std::string body = R"({"TableName":"t","Item":{"p":{"S":"x"}}})";
  std::string two = Gzip(body.substr(0, 10)) + Gzip(body.substr(10));
  std::string out;
  ASSERT_EQ(DecodeContent("gzip", two, kLimit, &out), Decoding::kDecoded);
  EXPECT_EQ(out, body);
}

TEST(ContentDecoding, DeflateZlibAndRaw) {
  std::string body(100000, 'x');
  std::string out;
  ASSERT_EQ(DecodeContent("deflate", Compress(body, MAX_WBITS), kLimit, &out), Decoding::kDecoded);
  EXPECT_EQ(out, body);
  ASSERT_EQ(DecodeContent("deflate", Compress(body, -MAX_WBITS), kLimit, &out), Decoding::kDecoded);
  EXPECT_EQ(out, body);
}

TEST(ContentDecoding, BrokenStreamsAreCorrupt) {
  std::string body = R"({"TableName":"t"})";
  std::string gz = Gzip(body);
  std::string out = "left over";
  EXPECT_EQ(DecodeContent("gzip", body, kLimit, &out), Decoding::kCorrupt);  // not gzip at all
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(DecodeContent("gzip", "", kLimit, &out), Decoding::kCorrupt);
  EXPECT_EQ(DecodeContent("gzip", gz.substr(0, gz.size() - 1), kLimit, &out), Decoding::kCorrupt);
  EXPECT_EQ(DecodeContent("gzip", gz.substr(0, 12), kLimit, &out), Decoding::kCorrupt);
  EXPECT_EQ(DecodeContent("gzip", gz + "junk", kLimit, &out), Decoding::kCorrupt);
  std::string flipped = gz;
  flipped[flipped.size() - 6] ^= 0x55;  // the CRC-32 of the trailer
  EXPECT_EQ(DecodeContent("gzip", flipped, kLimit, &out), Decoding::kCorrupt);
  EXPECT_EQ(DecodeContent("deflate", "not deflate at all", kLimit, &out), Decoding::kCorrupt);
}

TEST(ContentDecoding, UnknownEncodingsAreUnsupported) {
  std::string out;
  EXPECT_EQ(DecodeContent("garbage", "{}", kLimit, &out), Decoding::kUnsupported);
  EXPECT_EQ(DecodeContent("br", "{}", kLimit, &out), Decoding::kUnsupported);
  EXPECT_EQ(DecodeContent("gzip, gzip", "{}", kLimit, &out), Decoding::kUnsupported);
}

// The limit holds on the decoded size, and decoding stops there: a tiny body that would expand
// to gigabytes never makes the decoder hold more than the limit.
TEST(ContentDecoding, LimitAppliesAfterDecoding) {
  std::string body(1000, ' ');
  std::string out;
  EXPECT_EQ(DecodeContent("gzip", Gzip(body), 1000, &out), Decoding::kDecoded);
  EXPECT_EQ(DecodeContent("gzip", Gzip(body), 999, &out), Decoding::kTooLarge);
  EXPECT_TRUE(out.empty());
  std::string bomb = Gzip(std::string(64u << 20, '\0'));  // 64 MiB in about 64 KB
  ASSERT_LT(bomb.size(), 100u << 10);
  EXPECT_EQ(DecodeContent("gzip", bomb, kLimit, &out), Decoding::kTooLarge);
  // The string grows geometrically, so what it reserved stays within twice the limit.
  EXPECT_LE(out.capacity(), 2 * (kLimit + (64u << 10)));
  std::string two = Gzip(std::string(600, 'a')) + Gzip(std::string(600, 'b'));
  EXPECT_EQ(DecodeContent("gzip", two, 1000, &out), Decoding::kTooLarge);
}

TEST(ServiceHeaders, HttpDateIsImfFixdate) {
  EXPECT_EQ(FormatHttpDate(1613496627), "Tue, 16 Feb 2021 17:30:27 GMT");
  EXPECT_EQ(FormatHttpDate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  std::string now;
  AppendHttpDate(&now);
  EXPECT_EQ(now.size(), 29u);
  EXPECT_EQ(now.substr(now.size() - 4), " GMT");
}

TEST(ServiceHeaders, RequestIdShape) {
  std::string a, b;
  AppendRequestId(&a);
  AppendRequestId(&b);
  ASSERT_EQ(a.size(), 52u);
  for (char c : a) EXPECT_TRUE((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) << a;
  EXPECT_NE(a, b);
}

TEST(ServiceHeaders, Crc32OfKnownBodies) {
  // The values dynalite's connection tests (validated against the service) expect.
  EXPECT_EQ(Crc32("<UnknownOperationException/>\n"), 3552371480u);
  EXPECT_EQ(Crc32("healthy: dynamodb.us-east-1.amazonaws.com "), 3128867991u);
  EXPECT_EQ(Crc32(R"({"__type":"com.amazon.coral.service#UnknownOperationException"})"),
            1368724161u);
}

TEST(Cors, NoOriginNoHeaders) {
  std::string out;
  AppendCorsHeaders({"", "POST", "content-type"}, true, &out);
  EXPECT_EQ(out, "");
}

TEST(Cors, SimpleRequestGetsOriginAndExposeOnly) {
  std::string out;
  AppendCorsHeaders({"http://example.com", "dog", "cat"}, false, &out);
  EXPECT_EQ(out,
            "Access-Control-Allow-Origin: *\r\n"
            "Access-Control-Expose-Headers: x-amzn-RequestId,x-amzn-ErrorType,"
            "x-amzn-ErrorMessage,Date\r\n");
}

TEST(Cors, PreflightEchoesMethodAndHeaders) {
  std::string out;
  AppendCorsHeaders({"https://foo.example", "POST", "content-type,x-amz-target,authorization"},
                    true, &out);
  EXPECT_EQ(out,
            "Access-Control-Allow-Origin: *\r\n"
            "Access-Control-Allow-Headers: content-type,x-amz-target,authorization\r\n"
            "Access-Control-Allow-Methods: POST\r\n"
            "Access-Control-Expose-Headers: x-amzn-RequestId,x-amzn-ErrorType,"
            "x-amzn-ErrorMessage,Date\r\n"
            "Access-Control-Max-Age: 172800\r\n");
  out.clear();
  AppendCorsHeaders({"https://foo.example", "", ""}, true, &out);
  EXPECT_EQ(out.find("Allow-Methods"), std::string::npos);
  EXPECT_EQ(out.find("Allow-Headers"), std::string::npos);
  EXPECT_NE(out.find("Access-Control-Max-Age: 172800\r\n"), std::string::npos);
}

TEST(Cors, ValuesThatWouldSplitTheResponseAreNotEchoed) {
  std::string out;
  AppendCorsHeaders({"o", "POST\r\nX-Evil: 1", std::string_view("a\0b", 3)}, true, &out);
  EXPECT_EQ(out.find("Evil"), std::string::npos);
  EXPECT_EQ(out.find("Allow-Headers"), std::string::npos);
}

}  // namespace
}  // namespace ttlstore::server
