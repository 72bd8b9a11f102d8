-- Prints one machine-readable line after a wrk run, for service-load.sh:
-- RESULT requests/s p50_ms p99_ms max_ms socket_errors non_2xx requests
-- (wrk counts a status of 400 or above as a status error; the server sends no 3xx.)
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors
  io.write(string.format("RESULT %.1f %.3f %.3f %.3f %d %d %d\n",
    summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    errors.connect + errors.read + errors.write + errors.timeout,
    errors.status, summary.requests))
end
