// The drainer thread: applies every journal each period, so that writers
// never find one full in steady state.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "realm_shadow/recorder/recorder.h"

namespace realm_shadow {
namespace {

struct Drainer {
  std::mutex mutex;
  std::condition_variable wake;
  std::thread thread;
  bool running = false;
};
Drainer& GetDrainer() {
  static Drainer* drainer = new Drainer;  // never destroyed, as the registry
  return *drainer;
}

}  // namespace

void StartDrainer(unsigned period_us) {
  Drainer& d = GetDrainer();
  std::lock_guard<std::mutex> lock(d.mutex);
  if (d.running) return;
  d.running = true;
  d.thread = std::thread([period_us] {
    Drainer& drainer = GetDrainer();
    std::unique_lock<std::mutex> guard(drainer.mutex);
    while (drainer.running) {
      guard.unlock();
      DrainAll();
      guard.lock();
      drainer.wake.wait_for(guard, std::chrono::microseconds(period_us),
                            [&] { return !drainer.running; });
    }
  });
}

void StopDrainer() {
  Drainer& d = GetDrainer();
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    if (!d.running) return;
    d.running = false;
    thread = std::move(d.thread);
  }
  d.wake.notify_all();
  thread.join();
}

}  // namespace realm_shadow
