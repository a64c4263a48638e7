// The threads stage's candidate list: what hone serve already runs is never a candidate (it would measure the
// incumbent against itself), and the order follows the load, since the budget cuts the list from its end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tune/stage_candidates.h"

namespace hone::tune {
namespace {

class ThreadsCandidatesTest : public ::testing::Test {
 protected:
  ThreadsCandidatesTest() { given_.settings = &settings_; }

  std::vector<std::string> Ids(int cores, Load load, const Candidate& from) {
    given_.system.logical_cores = cores;
    given_.objective.loads = {load};
    std::vector<std::string> ids;
    for (const Candidate& c : ThreadsCandidates(state_, from, "threads", "")) ids.push_back(c.id);
    return ids;
  }

  TuneSettings settings_;
  TuneGiven given_;
  TuneState state_{given_};
};

TEST_F(ThreadsCandidatesTest, ConcurrentRequestsTryTheMostInstancesFirstAndNeverTheDefaultSplit) {
  // One instance with no thread count: hone serve gives it both cores, spinning, i.e. instances1-intra2.
  const Candidate from;
  EXPECT_EQ(Ids(2, Load::Closed(8), from),
            (std::vector<std::string>{"instances2-intra1", "instances1-intra1", "instances2-intra1-nospin",
                                      "instances1-intra2-nospin"}));
  EXPECT_EQ(Ids(2, Load::Open(500), from)[0], "instances2-intra1");
}

TEST_F(ThreadsCandidatesTest, OneRequestAtATimeTriesOneInstanceWithEveryCoreFirst) {
  Candidate from;
  from.instances = 2;  // hone serve splits 4 cores into 2 threads each: instances2-intra2 is the incumbent
  EXPECT_EQ(Ids(4, Load::Closed(1), from),
            (std::vector<std::string>{"instances1-intra4", "instances4-intra1", "instances1-intra1",
                                      "instances1-intra4-nospin", "instances2-intra2-nospin",
                                      "instances4-intra1-nospin"}));
}

TEST_F(ThreadsCandidatesTest, AnIncumbentWithThreadsSetIsSkippedByItsOwnSettings) {
  Candidate from;
  from.threads_set = true;
  from.instances = 2;
  from.session.intra_op_threads = 1;
  from.session.allow_spinning = false;
  const std::vector<std::string> ids = Ids(2, Load::Closed(4), from);
  EXPECT_EQ(ids, (std::vector<std::string>{"instances2-intra1", "instances1-intra2", "instances1-intra1",
                                           "instances1-intra2-nospin"}));
  // Risk follows the instances and the departures from ONNX Runtime's defaults, not the order measured.
  Candidate plain;
  std::vector<Candidate> c = ThreadsCandidates(state_, plain, "threads", "");
  ASSERT_GE(c.size(), 3u);
  EXPECT_GT(c[0].risk, c[1].risk);  // instances2-intra1 above instances1-intra1
  EXPECT_GT(c[2].risk, c[0].risk);  // no spinning above spinning
}

TEST_F(ThreadsCandidatesTest, QuickKeepsSpinning) {
  settings_.quick = true;
  EXPECT_EQ(Ids(2, Load::Closed(8), Candidate{}), (std::vector<std::string>{"instances2-intra1", "instances1-intra1"}));
}

}  // namespace
}  // namespace hone::tune
