import Metrics
import Prometheus

/// The process's Prometheus registry, with the global `MetricsSystem` bootstrapped
/// over it on first use.
///
/// `MetricsSystem.bootstrap` may run once per process and traps on a second call; the
/// tests build many applications in one process, so the bootstrap lives in a static
/// initializer, which Swift runs exactly once, on first access, whatever the thread.
public enum PrometheusMetrics {
    /// The registry `/metrics` renders.
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (sanitized(name, allowsColon: true), labels.map { (sanitized($0.0, allowsColon: false), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Makes sure the bootstrap has run, before the first metric is made.
    public static func bootstrap() { _ = registry }

    /// A name Prometheus accepts: OpenTelemetry's dotted names
    /// (`db.client.operation.duration`, `db.system.name`) with every character outside
    /// `[a-zA-Z0-9_]` (and `:` in metric names) turned into `_`, and a leading digit
    /// prefixed with `_`.
    static func sanitized(_ name: String, allowsColon: Bool) -> String {
        var result = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_": result.append(scalar)
            case ":" where allowsColon: result.append(scalar)
            default: result.append("_")
            }
        }
        if let first = result.first, ("0"..."9").contains(first) { result.insert("_", at: result.startIndex) }
        return String(result)
    }
}
