import Foundation

/// CPU and wall time of one measured run.
struct Sample {
    var wallSeconds: Double
    var cpuSeconds: Double
    var requests: Int
    /// Allocations and bytes allocated by the whole process (every thread), when counted.
    var allocations: (count: Int, bytes: Int)?

    var requestsPerSecond: Double { Double(requests) / wallSeconds }
    var cpuMicrosecondsPerRequest: Double { cpuSeconds * 1e6 / Double(requests) }
    var allocationsPerRequest: Double? { allocations.map { Double($0.count) / Double(requests) } }
    var bytesAllocatedPerRequest: Double? { allocations.map { Double($0.bytes) / Double(requests) } }
}

/// Measures `body`, which sends `requests` requests.
func measure(requests: Int, _ body: () async throws -> Void) async throws -> Sample {
    let cpuBefore = processCPUSeconds()
    let start = ContinuousClock.now
    Allocations.start()
    try await body()
    let allocations = Allocations.stop()
    let wall = ContinuousClock.now - start
    let cpu = processCPUSeconds() - cpuBefore
    let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
    return Sample(wallSeconds: seconds, cpuSeconds: cpu, requests: requests, allocations: allocations)
}

/// User plus system CPU time of this process so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
