import Foundation
import Hummingbird

/// The request context of every route: Hummingbird's basic one, with ``APIJSON``'s
/// coders, which write dates as ISO 8601 text (`createdAt`).
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    public var requestDecoder: JSONDecoder { Self.decoder }
    public var responseEncoder: JSONEncoder { Self.encoder }

    private static let encoder = APIJSON.encoder()
    private static let decoder = APIJSON.decoder()
}
