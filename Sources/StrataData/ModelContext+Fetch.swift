extension ModelContext {
    /// The models `descriptor` selects, in its order.
    ///
    /// ```swift
    /// let rich = try context.fetch(FetchDescriptor<Employee>(predicate: #Predicate { $0.salary > 100 }))
    /// ```
    ///
    /// Results are faults: a model's record is read when a property is first read (in
    /// batches with its fetch siblings), an external-storage attribute only when it is read.
    ///
    /// - Throws: `untranslatablePredicate` naming a part of the predicate the store cannot
    ///   run; `unknownKeyPath`; store errors.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let request = try descriptor.fetchRequest(schema: schema)
        return try objectContext.fetch(request).map { try model(for: $0, as: T.self) }
    }

    /// How many models `descriptor` selects, without loading them.
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try objectContext.count(for: try descriptor.fetchRequest(schema: schema))
    }

    /// The identifiers of the models `descriptor` selects, without loading them.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        try objectContext.fetchObjectIDs(try descriptor.fetchRequest(schema: schema)).map(PersistentIdentifier.init(objectID:))
    }

    /// Calls `block` with each model `descriptor` selects, loading `batchSize` at a time
    /// and letting each batch go before the next, so memory follows the batch, not the
    /// store. The descriptor must not sort (the walk is in store order).
    ///
    /// ```swift
    /// try context.enumerate(FetchDescriptor<Employee>(), batchSize: 1_000) { employee in
    ///     total += employee.salary
    /// }
    /// ```
    ///
    /// - Throws: `invalidArgument` for a sorted descriptor or a batch size below 1; what
    ///   `block` throws (which stops the walk).
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5_000, block: (T) throws -> Void
    ) throws {
        let request = try descriptor.fetchRequest(schema: schema)
        try objectContext.enumerateObjects(request, batchSize: batchSize) { batch in
            for object in batch { try block(try model(for: object, as: T.self)) }
        }
    }
}
