// A streamed reply between its producer and its connection.
#include "serve/http/reply_stream.h"

namespace hone::serve::http {
namespace {

TEST(ReplyStreamTest, PiecesComeOutInOrderThenTheEnd) {
  ReplyStream s;
  int wakes = 0;
  s.Write("a");  // before the connection attaches: kept
  s.Attach([&] { ++wakes; });
  EXPECT_EQ(wakes, 1);  // something was waiting
  s.Write("b");         // a Take is already due: no second wake
  std::string out;
  bool closed = true;
  EXPECT_TRUE(s.Take(&out, &closed));
  EXPECT_EQ(out, "ab");
  EXPECT_FALSE(closed);
  EXPECT_FALSE(s.Take(&out, &closed));
  s.Write("c");
  s.Close();
  s.Write("after close");
  out.clear();
  EXPECT_TRUE(s.Take(&out, &closed));
  EXPECT_EQ(out, "c");
  EXPECT_TRUE(closed);
}

TEST(ReplyStreamTest, AClientThatLeavesIsReportedOnceAndLaterPiecesAreDropped) {
  int gone = 0;
  ReplyStream s([&] { ++gone; });
  s.Write("a");
  s.Abandon();
  s.Abandon();
  EXPECT_EQ(gone, 1);
  s.Write("b");
  std::string out;
  bool closed = false;
  s.Take(&out, &closed);
  EXPECT_EQ(out, "");
}

TEST(ReplyStreamTest, LeavingAfterTheEndIsNotReported) {
  int gone = 0;
  ReplyStream s([&] { ++gone; });
  s.Close();
  s.Abandon();
  EXPECT_EQ(gone, 0);
}

}  // namespace
}  // namespace hone::serve::http
