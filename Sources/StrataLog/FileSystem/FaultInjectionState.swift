import SystemPackage

/// What a `FaultInjectingFileSystem` decided for one operation.
enum FaultDecision: Sendable, Equatable {
    case proceed
    /// Do nothing; throw `.io` with `errno`.
    case fail(errno: Int32, fault: String)
    /// Write only the first `keep` bytes, then throw `.io` with `errno`.
    case partial(keep: Int, errno: Int32, fault: String)
}

/// The rules, counters and journal of a `FaultInjectingFileSystem`, guarded by its mutex.
struct FaultInjectionState: Sendable {
    struct Rule: Sendable {
        let id: Fault.ID
        let fault: Fault
        /// Matching operations seen since injection (what triggers count).
        var matches = 0
        /// Bytes taken from a full-disk rule's capacity.
        var used: Int64 = 0
    }

    private(set) var rules: [Rule] = []
    private var nextID = 0
    /// Times each fault fired; kept after the fault is removed so tests can still ask.
    private(set) var fired: [Fault.ID: Int] = [:]
    private(set) var counts: [Fault.Operation: Int] = [:]
    private(set) var bytesWritten: Int64 = 0
    var isRecording = false
    private(set) var events: [FaultInjectingFileSystem.Event] = []

    init() {}

    mutating func inject(_ fault: Fault) -> Fault.ID {
        nextID += 1
        let id = Fault.ID(rawValue: nextID)
        rules.append(Rule(id: id, fault: fault))
        fired[id] = 0
        return id
    }

    mutating func remove(_ id: Fault.ID) { rules.removeAll { $0.id == id } }
    mutating func clear() { rules.removeAll() }

    mutating func resetCounts() {
        counts = [:]
        bytesWritten = 0
        events = []
    }

    /// Counts the operation and decides whether it fails.
    ///
    /// - Parameters:
    ///   - paths: the path operated on (a rename passes source and destination).
    ///   - growth: the bytes the operation would add (a write's length, a truncate's extension).
    mutating func decide(_ operation: Fault.Operation, paths: [String], growth: Int64 = 0) -> FaultDecision {
        counts[operation, default: 0] += 1
        var decision = FaultDecision.proceed
        // Every matching rule counts the operation, even when an earlier rule fires, so
        // that `.nth(3)` means the 3rd matching operation whatever else is injected.
        for index in rules.indices {
            let fault = rules[index].fault
            let effect: FaultDecision
            switch fault.effect {
            case .fail(let errno):
                guard fault.operation == operation else { continue }
                effect = .fail(errno: errno, fault: fault.description)
            case .shortWrite(let keep, let errno):
                guard operation == .write else { continue }
                effect = .partial(keep: min(keep, Int(growth)), errno: errno, fault: fault.description)
            case .diskFull:
                continue
            }
            guard paths.contains(where: fault.paths.matches) else { continue }
            rules[index].matches += 1
            if decision == .proceed && fault.trigger.fires(onMatch: rules[index].matches) {
                decision = effect
                fired[rules[index].id, default: 0] += 1
            }
        }
        if decision == .proceed { decision = takeSpace(for: operation, growth: growth) }
        if operation == .write {
            switch decision {
            case .proceed: bytesWritten += growth
            case .partial(let keep, _, _): bytesWritten += Int64(keep)
            case .fail: break
            }
        }
        if isRecording {
            events.append(.init(operation: operation, paths: paths, injectedErrno: decision.errno))
        }
        return decision
    }

    /// Applies full-disk rules: the operations that take space fail once none is left.
    private mutating func takeSpace(for operation: Fault.Operation, growth: Int64) -> FaultDecision {
        guard [.write, .truncate, .create, .createDirectory].contains(operation) else { return .proceed }
        var decision = FaultDecision.proceed
        let noSpace = Errno.noSpace.rawValue
        for index in rules.indices {
            guard case .diskFull(let capacity) = rules[index].fault.effect else { continue }
            let left = capacity - rules[index].used
            let description = rules[index].fault.description
            switch operation {
            case .write:
                let taken = min(growth, left)
                rules[index].used += taken
                if taken < growth { decision = .partial(keep: Int(taken), errno: noSpace, fault: description) }
            case .truncate:
                if growth > left { decision = .fail(errno: noSpace, fault: description) } else { rules[index].used += growth }
            default:
                if left <= 0 { decision = .fail(errno: noSpace, fault: description) }
            }
            if decision != .proceed { fired[rules[index].id, default: 0] += 1 }
        }
        return decision
    }
}

extension FaultDecision {
    var errno: Int32? {
        switch self {
        case .proceed: nil
        case .fail(let errno, _), .partial(_, let errno, _): errno
        }
    }
}
