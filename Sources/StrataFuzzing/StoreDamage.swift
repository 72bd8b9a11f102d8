import Foundation
import Strata

/// The store target: the input picks a template (records compressed or not) and up
/// to sixteen edits — a field set to an edge value, a byte flipped, a file cut,
/// removed or replaced by another, a manifest entry dropped — then the checksums are
/// recomputed (unless the input says not to). The damaged store is opened, every
/// object read (attributes, relationships, external binaries), `verify` run, one
/// object saved, the store compacted and reopened.
///
/// Oracle: no trap and no hang anywhere; errors are `StrataError`s; once the damaged
/// store has opened and acknowledged a save, the reopened store must open and hold
/// that object (read by its id) — an open that accepts damage it will later trip over
/// is a loss of acknowledged data; and a fetch of it by its indexed name must answer
/// exactly that object, or throw `.corrupt` while `verify` reports the damage: a
/// damaged store may refuse a query, never answer it wrongly.
enum StoreDamage {
    static func run(_ bytes: [UInt8]) throws {
        var input = FuzzInput(bytes)
        let flags = input.byte()
        guard let model = StoreTemplate.model, var files = StoreTemplate.files[flags & 1 == 1], !files.isEmpty else {
            throw FuzzFinding("store: the template store could not be built")
        }
        for _ in 0..<input.below(17) { edit(&files, &input) }
        if flags & 2 == 0 { repairChecksums(&files) }

        let memory = InMemoryFileSystem()
        for directory in ["", "/segments", "/index", "/blobs"] { try memory.createDirectory(StoreTemplate.root + directory) }
        for (path, contents) in files { try memory.setBytes(contents, of: path) }
        memory.makeAllDurable()
        let options = StoreTemplate.options(memory, compressed: flags & 1 == 1)

        let store = try ObjectStore(at: StoreTemplate.root, model: model, options: options)
        readEverything(store)
        _ = try? store.verify()
        let marker = "acknowledged \(bytes.count)"
        let savedID: ObjectID
        do {
            let context = store.newContext()
            let department = try context.insert("Department")
            try department.setValue(marker, forKey: "name")
            try context.save()
            savedID = department.objectID
        } catch {
            try? store.close()
            return
        }
        do { _ = try store.records.compact(force: true) } catch { trace("compact: \(error)") }
        try? store.close()

        let reopened: ObjectStore
        do {
            reopened = try ObjectStore(at: StoreTemplate.root, model: model, options: options)
        } catch {
            throw FuzzFinding("store: opened, acknowledged a save, then does not reopen: \(error)")
        }
        defer { try? reopened.close() }
        let context = reopened.newContext()
        // The acknowledged object is held: read by its id, it has what was saved.
        do {
            guard try context.object(with: savedID).value(forKey: "name") == .string(marker) else {
                throw FuzzFinding("store: the object saved after open holds another name after compaction and reopen")
            }
        } catch let finding as FuzzFinding {
            throw finding
        } catch {
            throw FuzzFinding("store: the object saved after open cannot be read after compaction and reopen: \(error)")
        }
        // A query answers exactly, or refuses a store it knows is damaged; it never
        // answers wrongly (an index that cannot be read once answered "nothing").
        do {
            let found = try context.fetch(FetchRequest(entityName: "Department", predicate: try Predicate(format: "name == %@", marker)))
            guard found.map(\.objectID) == [savedID] else {
                throw FuzzFinding("store: a fetch by the saved object's name answered \(found.count) objects after compaction and reopen")
            }
        } catch let finding as FuzzFinding {
            throw finding
        } catch let error as StrataError where error.code == .corrupt {
            guard let report = try? reopened.verify(), !report.isSound else {
                throw FuzzFinding("store: a fetch failed with \(error), but verify finds the store sound")
            }
        } catch {
            throw FuzzFinding("store: a fetch by name failed after compaction and reopen: \(error)")
        }
        readEverything(reopened)
    }

    static func readEverything(_ store: ObjectStore) {
        let context = store.newContext()
        for entity in ["Department", "Employee"] {
            guard let objects = try? context.fetch(FetchRequest(entityName: entity)) else { continue }
            for object in objects {
                for key in ["name", "salary", "serial", "photo"] { _ = try? object.value(forKey: key) }
                _ = try? object.objects("employees")
                _ = try? object.object("department")
            }
        }
    }

    static func edit(_ files: inout [String: [UInt8]], _ input: inout FuzzInput) {
        let paths = files.keys.sorted()
        guard !paths.isEmpty else { return }
        let path = paths[input.below(paths.count)]
        guard var bytes = files[path] else { return }
        switch input.below(10) {
        case 0...4: // a field set to an edge value
            let fields = FileFields.fields(of: path, bytes)
            guard !fields.isEmpty else { return }
            let field = fields[input.below(fields.count)]
            let old = read(bytes, field)
            let mask: UInt64 = field.width >= 8 ? .max : (1 << (8 * UInt64(field.width))) - 1
            let values: [UInt64] = [0, 1, mask, mask - 1, old &+ 1, old &- 1, old &+ 2, mask >> 1, input.u64(),
                                    fields.isEmpty ? 0 : read(bytes, fields[input.below(fields.count)])]
            let value = values[input.below(values.count)] & mask
            trace("\(path): field \(field) \(old) → \(value)")
            write(value, into: &bytes, field)
        case 5: // a byte flipped
            guard !bytes.isEmpty else { return }
            let offset = input.below(bytes.count), mask = input.byte() | 1
            trace("\(path): byte \(offset) ^= \(mask)")
            bytes[offset] ^= mask
        case 6: // the file cut at a field boundary or anywhere
            let fields = FileFields.fields(of: path, bytes)
            let cut = input.bool() && !fields.isEmpty ? fields[input.below(fields.count)].offset : input.below(bytes.count + 1)
            trace("\(path): cut at \(min(cut, bytes.count))")
            bytes.removeSubrange(min(cut, bytes.count)...)
        case 7: // the file removed
            trace("\(path): removed")
            files[path] = nil
            return
        case 8: // the file replaced by another of the store's
            let otherPath = paths[input.below(paths.count)]
            guard let other = files[otherPath] else { return }
            trace("\(path): replaced by \(otherPath)")
            bytes = other
        default: // a run of bytes copied from elsewhere in the file, or appended
            guard bytes.count > 8 else { return }
            let from = input.below(bytes.count), length = min(input.below(64), bytes.count - from)
            let chunk = Array(bytes[from..<from + length])
            if input.bool() {
                trace("\(path): \(length) bytes from \(from) appended")
                bytes.append(contentsOf: chunk)
            } else {
                let to = input.below(bytes.count - length + 1)
                trace("\(path): \(length) bytes from \(from) copied to \(to)")
                bytes.replaceSubrange(to..<to + length, with: chunk)
            }
        }
        files[path] = bytes
    }

    /// `STRATA_FUZZ_TRACE=1` prints every edit (and compaction's error, and the store's
    /// warnings) to standard error, to read a finding.
    static func trace(_ line: @autoclosure () -> String) {
        if ProcessInfo.processInfo.environment["STRATA_FUZZ_TRACE"] != nil { FileHandle.standardError.write(Data((line() + "\n").utf8)) }
    }

    static func repairChecksums(_ files: inout [String: [UInt8]]) {
        for (path, var bytes) in files {
            if path.hasSuffix("MANIFEST") || path.hasSuffix(".hint") { Checksums.repairTrailer(&bytes) }
            else if path.hasSuffix(".idx") { Checksums.repairIndexFooter(&bytes) }
            else if path.hasSuffix(".seg") { Checksums.repairFrames(&bytes, from: 48) }
            else if path.hasSuffix(".blob") { Checksums.repairBlobEntries(&bytes) }
            files[path] = bytes
        }
    }

    static func read(_ bytes: [UInt8], _ field: FileField) -> UInt64 {
        var value: UInt64 = 0
        for i in stride(from: min(field.width, 8) - 1, through: 0, by: -1) { value = value << 8 | UInt64(bytes[field.offset + i]) }
        return value
    }

    static func write(_ value: UInt64, into bytes: inout [UInt8], _ field: FileField) {
        for i in 0..<min(field.width, 8) { bytes[field.offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))) }
    }
}
