import SystemPackage

extension LogStore {
    /// Copies the store, as it was at one transaction, into a new directory at
    /// `destination`, while it goes on serving reads and commits on other threads.
    ///
    /// The writer lock is held only to note the manifest, where the active segment's
    /// last transaction ends, the active blob file's length and the last sequence; the
    /// files are then copied without it. Sealed segments, index files and sealed blob
    /// files never change, so they are hard-linked when `destination` is on the store's
    /// file system (copied otherwise); the active segment and blob file are copied up to
    /// the lengths noted. The copy's MANIFEST is written last, into a sibling directory
    /// (`destination` + `.partial-` + a random suffix) that is renamed to `destination`
    /// once every file and directory in it is fsynced: a backup that fails or is killed
    /// leaves nothing at `destination` (at most the `.partial-` directory of a killed
    /// one, which is not a store until renamed). The copy is a store of the same format
    /// and id; open it as any other.
    ///
    /// A hard-linked file is one file with two names: the backup then guards against
    /// mistakes and can be moved elsewhere, but shares the disk's fate until it is.
    ///
    /// ```swift
    /// let report = try store.backup(to: "/backups/Employees-monday.strata")
    /// print(report.sequence)   // every transaction up to this one is in the copy
    /// ```
    ///
    /// A compaction started during a backup waits for it to finish, and a backup waits
    /// for a running compaction. With durable commits (`.everyCommit`), the backup
    /// finishes only once the last transaction it holds is durable: one whose fsync
    /// fails is never acknowledged, and the backup then fails too. `progress` is called on the calling thread after each
    /// chunk copied and each file finished; it must not call ``compact(force:)``.
    ///
    /// - Parameters:
    ///   - destination: the backup's directory; it must not exist, its parent must.
    ///   - progress: called as files are linked or copied.
    /// - Returns: the last sequence the copy holds, and what it is made of.
    /// - Throws: `.invalidArgument` when `destination` exists, lies inside the store, or
    ///   the store is a migration's staging store or a snapshot (back up the store it
    ///   was taken from); `.notFound` when the parent of
    ///   `destination` does not exist; `.closed`; `.readOnly` when an earlier write
    ///   failure left the store read-only (its files may hold a transaction it did not
    ///   acknowledge: reopen it first); `.io` with the path and errno of a failed
    ///   read, write, fsync, link or rename (nothing is left at `destination` then).
    public func backup(to destination: String, progress: ((BackupProgress) -> Void)? = nil) throws -> BackupReport {
        let target = StorePaths(destination)
        try checkBackupDestination(target)
        // Pinning the files the backup copies: compaction is what deletes files while
        // the store is open (a group's segments and index files after its swap, the
        // blob files it collected), so the backup holds compaction's gate throughout
        // and every file its snapshot names stays in place. A pin count that delayed
        // those deletions would need them deferred past the swap and retried later,
        // with the retired list (FORMAT.md §6.3) covering a crash in between: more code
        // on compaction's crash path, to let compaction run during a backup. Commits,
        // rolls and reads never take the gate. The other deletions, by
        // `replaceWithEmptyStore` and `adoptStaging`, close the store: a backup they
        // overtake fails on the missing file (ids are never reused, so it cannot copy
        // another file in its place) and leaves nothing at `destination`.
        return try compactionGate.withLock { _ in
            do {
                return try runBackup(to: target, progress: progress)
            } catch var error as StrataError {
                error.context["backup"] = target.root
                logger.warning("backup failed; nothing was left at its destination", metadata: ["destination": "\(target.root)", "error": "\(error)"])
                throw error
            }
        }
    }

    /// What the backup copies, noted under the writer lock: a transaction boundary.
    private struct BackupSnapshot {
        var manifest: Manifest
        var sequence: UInt64
        var segmentEnd: Int64
        var blobEnd: Int64
        /// Where the last transaction ends, when this store's commits are acknowledged
        /// only once durable: the copy is not finished before it is (a transaction
        /// appended but not yet fsynced may still fail, and is then never acknowledged).
        var durablePoint: LogPoint?
    }

    private func runBackup(to target: StorePaths, progress: ((BackupProgress) -> Void)?) throws -> BackupReport {
        let snapshot = try backupSnapshot()
        var manifest = snapshot.manifest
        // The files the retired list names (FORMAT.md §6.3) are not in the copy.
        manifest.metadata[Manifest.retiredKey] = nil
        let manifestBytes = Int64(manifest.encoded().count)
        let partial = StorePaths(target.root + ".partial-" + String(UInt64.random(in: .min ... .max), radix: 16))
        guard !fileSystem.exists(partial.root) else {
            throw StrataError(.invalidArgument, "a backup's scratch directory exists; try again", path: partial.root)
        }
        let items = try backupItems(snapshot, into: partial)
        var copier = BackupCopier(fileSystem: fileSystem, bytesTotal: items.reduce(manifestBytes) { $0 + $1.size },
                                  filesTotal: items.count + 1, report: progress)
        removeAbandonedPartials(of: target)
        do {
            try fileSystem.createDirectory(partial.root)
            // Held while the copy is made: a later backup to the same destination knows
            // a scratch directory whose lock it can take for one a killed backup left.
            let held = try fileSystem.lock(partial.lock)
            defer { held.unlock() }
            for directory in [partial.segments, partial.blobs, partial.index] { try fileSystem.createDirectory(directory) }
            for item in items { try copier.put(item) }
            if let point = snapshot.durablePoint { try groupCommit.waitUntilDurable(point) }
            for directory in [partial.segments, partial.blobs, partial.index] { try fileSystem.syncDirectory(directory) }
            // The MANIFEST last (FORMAT.md §4.5, store creation): until it is there the
            // directory is not a store. ManifestWriter fsyncs it and the directory.
            try ManifestWriter(fileSystem: fileSystem, paths: partial).write(manifest)
            copier.finished(bytes: manifestBytes)
            // Checked again: rename would replace an empty directory made meanwhile.
            guard !fileSystem.exists(target.root) else {
                throw StrataError(.invalidArgument, "the backup's destination was created while the backup ran", path: target.root)
            }
            try fileSystem.rename(partial.root, to: target.root)
        } catch {
            try? fileSystem.remove(partial.root)
            throw error
        }
        do {
            try fileSystem.syncDirectory(target.parent)
        } catch {
            // The rename may not survive a power loss: the caller hears of a failure, so
            // the copy does not stay to be taken for a durable one.
            try? fileSystem.remove(target.root)
            throw error
        }
        let report = BackupReport(sequence: snapshot.sequence, files: copier.progress.filesCopied,
                                  bytes: copier.progress.bytesCopied, linkedFiles: copier.linked)
        logger.info("backup finished", metadata: ["destination": "\(target.root)", "report": "\(report)"])
        return report
    }

    /// Whether `path` lies in the store directory at `store` (or is it), with links and
    /// `.`/`..` resolved: a copy written there would be taken for leftovers.
    package static func location(_ path: String, liesInStoreAt store: String) -> Bool {
        StorePaths(store).contains(path)
    }

    /// Removes the scratch directories of earlier backups to `target` that a kill
    /// left (`DEST.partial-…`): those that hold a backup's files only, among them the
    /// lock a backup takes first, which no backup holds now. A backup still copying
    /// holds its own; one so new it has no lock yet is left too.
    private func removeAbandonedPartials(of target: StorePaths) {
        guard let entries = try? fileSystem.contentsOfDirectory(target.parent) else { return }
        let backupFiles: Set<String> = ["LOCK", "segments", "blobs", "index", "MANIFEST", "MANIFEST.tmp"]
        for entry in entries where entry.hasPrefix(target.name + ".partial-") {
            let partial = StorePaths(target.parent + "/" + entry)
            guard fileSystem.isDirectory(partial.root), let held = try? fileSystem.contentsOfDirectory(partial.root),
                  held.contains("LOCK"), Set(held).isSubset(of: backupFiles),
                  let lock = try? fileSystem.lock(partial.lock) else { continue }
            lock.unlock()
            logger.warning("removing the scratch directory of a backup that did not finish", metadata: ["path": "\(partial.root)"])
            try? fileSystem.remove(partial.root)
        }
    }

    private func checkBackupDestination(_ target: StorePaths) throws {
        guard !target.root.isEmpty else { throw StrataError(.invalidArgument, "the backup's destination is an empty path") }
        if fileSystem.exists(target.root) {
            throw StrataError(.invalidArgument, "the backup's destination exists: back up into a new directory", path: target.root)
        }
        if paths.contains(target.root) {
            throw StrataError(.invalidArgument, "the backup's destination lies inside the store", path: target.root)
        }
        guard fileSystem.isDirectory(target.parent) else {
            throw StrataError(.notFound, "the directory that would hold the backup does not exist", path: target.parent)
        }
    }

    /// The manifest, the end of the active segment's last transaction, the active blob
    /// file's length and the last sequence, together: the writer lock orders them
    /// against every commit, roll and manifest swap.
    private func backupSnapshot() throws -> BackupSnapshot {
        try writer.withLock { w in
            try state.withLock { s in
                if s.isClosed { throw StrataError(.closed, "the store is closed", path: path) }
                if isSnapshot {
                    // Its writer state is a view's: it names no end of the active files.
                    throw StrataError(.invalidArgument, "a snapshot has no backup of its own: back up the store it was taken from", path: path)
                }
                if s.isStaging {
                    throw StrataError(.invalidArgument, "a migration's staging store has no backup of its own: back up the store it belongs to", path: path)
                }
                if let failure = s.failure {
                    // A failed fsync leaves the bytes of a transaction that was not
                    // acknowledged in the active segment, past the last sequence.
                    throw StrataError(.readOnly, "the store is read-only after an earlier failure; reopen it to back it up: \(failure.message)", path: failure.path ?? path, errno: failure.errno)
                }
                guard s.manifest.activeSegment?.id == w.segmentID, s.manifest.activeBlobFile?.id == w.blobID else {
                    throw StrataError(.corrupt, "the manifest does not name the active segment \(w.segmentID) and blob file \(w.blobID)", path: paths.manifest)
                }
                let durablePoint = options.durability == .everyCommit && !options.readOnly ? LogPoint(segment: w.segmentID, end: w.segmentEnd) : nil
                return BackupSnapshot(manifest: s.manifest, sequence: s.lastSequence, segmentEnd: w.segmentEnd, blobEnd: w.blobEnd, durablePoint: durablePoint)
            }
        }
    }

    /// Every file of the snapshot, with its size: segments with their index files (and
    /// hint files, format 1), then blob files. Derived files that are missing are left
    /// out: the copy's open rebuilds them, as the store's own open would.
    private func backupItems(_ snapshot: BackupSnapshot, into partial: StorePaths) throws -> [BackupCopier.Item] {
        var items: [BackupCopier.Item] = []
        func whole(_ source: String, _ target: String, optional: Bool) throws {
            let size: Int64
            do {
                let file = try fileSystem.open(source, mode: .readOnly)
                defer { try? file.close() }
                size = try file.size()
            } catch let error as StrataError where optional && error.errno == Errno.noSuchFileOrDirectory.rawValue {
                return
            }
            items.append(.init(source: source, target: target, length: nil, size: size, optional: optional))
        }
        for info in snapshot.manifest.segments {
            if info.state == .active {
                items.append(.init(source: paths.segment(info.id), target: partial.segment(info.id), length: snapshot.segmentEnd, size: snapshot.segmentEnd))
                continue
            }
            try whole(paths.segment(info.id), partial.segment(info.id), optional: false)
            try whole(paths.indexFile(info.id), partial.indexFile(info.id), optional: true)
            if snapshot.manifest.version == 1 { try whole(paths.hint(info.id), partial.hint(info.id), optional: true) }
        }
        for info in snapshot.manifest.blobFiles {
            if info.state == .active {
                items.append(.init(source: paths.blob(info.id), target: partial.blob(info.id), length: snapshot.blobEnd, size: snapshot.blobEnd))
            } else {
                try whole(paths.blob(info.id), partial.blob(info.id), optional: false)
            }
        }
        return items
    }
}
