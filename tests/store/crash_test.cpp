// Resume after kill -9: a child process writes verdicts and is killed with SIGKILL;
// the parent reopens the store and must find every committed verdict, nothing else,
// and a database that passes PRAGMA integrity_check.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include "store/store.h"
#include "store_test_util.h"

namespace tritonrl::store {
namespace {

using testing::MakeResult;
using testing::MakeRun;
using testing::RawQueryInt;
using testing::TempDir;

constexpr char kRun[] = "crash-run";

std::string SampleId(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d", i);  // sorts like the integer
  return buf;
}

// Reads one byte; false at EOF (the child is gone).
bool ReadByte(int fd, char* c) {
  for (;;) {
    ssize_t n = read(fd, c, 1);
    if (n == 1) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

void WriteByte(int fd, char c) {
  while (write(fd, &c, 1) < 0 && errno == EINTR) {
  }
}

void Kill(pid_t pid) {
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(WTERMSIG(status), SIGKILL);
}

// Verifies that the verdicts of the run are exactly samples 0..n-1, each with all its rows.
void ExpectExactlyFirst(const std::string& path, int n) {
  auto s = Store::Open(path);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(s->CheckIntegrity().ok());
  auto done = s->DoneSamples(kRun);
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(static_cast<int>(done->size()), n);
  for (int i = 0; i < n; ++i) EXPECT_EQ((*done)[i].sample_id, SampleId(i));
  // No partial rows: samples, timings and trials exist exactly for the committed verdicts.
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM samples"), n);
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM stage_timings"), 2 * n);
  EXPECT_EQ(RawQueryInt(path, "SELECT count(*) FROM trial_stats"), 2 * n);
  for (const auto& key : *done) {
    auto v = s->GetVerdict(key);
    ASSERT_TRUE(v.ok() && v->has_value());
    EXPECT_EQ((*v)->reasons, std::vector<std::string>{"reason for " + key.sample_id});
  }
}

TEST(StoreCrash, KillDuringATransactionLosesOnlyThatTransaction) {
  TempDir dir;
  std::string path = dir.File("crash.db");
  constexpr int kCommitted = 7;
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    int out = pipefd[1];
    int writes = 0;
    OpenOptions o;
    // Inside the (kCommitted+1)-th transaction, before COMMIT: tell the parent, then hang.
    o.before_commit = [&] {
      if (++writes > kCommitted) {
        WriteByte(out, 'M');
        for (;;) pause();
      }
    };
    auto s = Store::Open(path, o);
    if (!s.ok() || !s->BeginRun(MakeRun(kRun)).ok()) _exit(3);
    for (int i = 0;; ++i) {
      if (!s->PutResult(MakeResult(kRun, "level1/1_ReLU", SampleId(i))).ok()) _exit(4);
      WriteByte(out, 'C');
    }
  }
  close(pipefd[1]);
  int commits = 0;
  char c = 0;
  while (ReadByte(pipefd[0], &c) && c == 'C') ++commits;
  ASSERT_EQ(c, 'M') << "child exited early";
  ASSERT_EQ(commits, kCommitted);
  Kill(pid);
  close(pipefd[0]);
  ExpectExactlyFirst(path, kCommitted);
}

TEST(StoreCrash, KillAtAnyMomentKeepsCommittedVerdictsAndResumes) {
  TempDir dir;
  std::string path = dir.File("crash.db");
  constexpr int kTotal = 400;
  // Kill after a varying number of acknowledged commits, so the signal lands at
  // different points of the write path (the file is reused: later rounds resume).
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    OpenOptions o;
    o.synchronous_full = false;  // faster commits: more of them in flight when the kill lands
    auto s = Store::Open(path, o);
    if (!s.ok() || !s->BeginRun(MakeRun(kRun)).ok()) _exit(3);
    for (int i = 0; i < kTotal; ++i) {
      if (!s->PutResult(MakeResult(kRun, "level1/1_ReLU", SampleId(i))).ok()) _exit(4);
      WriteByte(pipefd[1], 'C');
    }
    for (;;) pause();  // wait for the kill even if every write is done
  }
  close(pipefd[1]);
  int acked = 0;
  char c = 0;
  while (acked < 25 && ReadByte(pipefd[0], &c)) ++acked;
  ASSERT_EQ(acked, 25);
  Kill(pid);
  while (ReadByte(pipefd[0], &c)) ++acked;  // acks written before the kill landed
  close(pipefd[0]);

  int done_count = 0;
  {
    auto s = Store::Open(path);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    auto done = s->DoneSamples(kRun);
    ASSERT_TRUE(done.ok());
    done_count = static_cast<int>(done->size());
  }
  // Every acknowledged verdict is there; at most one more (committed, not yet acked).
  ASSERT_GE(done_count, acked);
  ASSERT_LE(done_count, acked + 1);
  ExpectExactlyFirst(path, done_count);

  // Resume: evaluate only what is not done, as the engine does with --resume.
  {
    OpenOptions o;
    o.synchronous_full = false;
    auto s = Store::Open(path, o);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->BeginRun(MakeRun(kRun)).ok());
    auto done = s->DoneSamples(kRun);
    ASSERT_TRUE(done.ok());
    std::set<std::string> have;
    for (const auto& k : *done) have.insert(k.sample_id);
    int written = 0;
    for (int i = 0; i < kTotal; ++i) {
      if (have.count(SampleId(i))) continue;
      ASSERT_TRUE(s->PutResult(MakeResult(kRun, "level1/1_ReLU", SampleId(i))).ok());
      ++written;
    }
    EXPECT_EQ(written, kTotal - done_count);
  }
  ExpectExactlyFirst(path, kTotal);
}

}  // namespace
}  // namespace tritonrl::store
