extension ObjectModel {
    /// Whether a store with this metadata opens with this model without a migration,
    /// as Core Data's `NSManagedObjectModel.isConfiguration(withName:compatibleWithStoreMetadata:)`.
    ///
    /// ```swift
    /// let compatible = v2.isCompatible(withStoreMetadata: try ObjectStore.metadata(at: path))
    /// ```
    public func isCompatible(withStoreMetadata metadata: StoreMetadata) -> Bool {
        metadata.isCompatible(with: self)
    }
}
