-- POST /todos with a small JSON body, then the same report line as report.lua.
wrk.method = "POST"
wrk.path = "/todos"
wrk.body = '{"title":"load test todo"}'
wrk.headers["Content-Type"] = "application/json"

done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors
  io.write(string.format("RESULT %.1f %.3f %.3f %.3f %d %d %d\n",
    summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
    errors.connect + errors.read + errors.write + errors.timeout,
    errors.status, summary.requests))
end
