/// A relationship declaration in the model DSL, inside an ``Entity`` block.
///
/// Every relationship names its inverse; a one-way relationship says so with
/// ``withoutInverse()``, or the model is invalid.
///
/// ```swift
/// Relationship("employees", to: "Employee", inverse: "department",
///              toMany: true, deleteRule: .cascade)
/// Relationship("questions", to: "Question", inverse: "subject", toMany: true)
///     .count(min: 1)
/// Relationship("createdBy", to: "User")
///     .withoutInverse()
/// ```
public struct Relationship: Sendable, Hashable {
    /// The description this declaration stands for.
    package var relationshipDescription: RelationshipDescription

    /// Declares a relationship.
    ///
    /// - Parameters:
    ///   - name: The relationship's name, an ASCII identifier.
    ///   - destination: The entity it points to.
    ///   - inverse: The relationship on the destination that points back.
    ///   - toMany: Holds many objects rather than at most one. Default `false`.
    ///   - ordered: Keeps a to-many relationship's objects in order. Default `false`.
    ///   - optional: May be nil (to-one) or empty (to-many). Default `true`.
    ///   - deleteRule: What deleting the source does to destinations. Default `.nullify`.
    public init(
        _ name: String,
        to destination: String,
        inverse: String? = nil,
        toMany: Bool = false,
        ordered: Bool = false,
        optional: Bool = true,
        deleteRule: DeleteRule = .nullify
    ) {
        relationshipDescription = RelationshipDescription(
            name: name, destinationEntityName: destination, inverseName: inverse,
            isToMany: toMany, isOrdered: ordered, isOptional: optional, deleteRule: deleteRule)
    }

    /// The relationship with no inverse, deliberately: the model accepts it instead of
    /// reporting a missing inverse.
    public func withoutInverse() -> Relationship {
        with { $0.waivesInverse = true }
    }

    /// The number of objects a to-many relationship must hold at save.
    public func count(min: Int? = nil, max: Int? = nil) -> Relationship {
        with {
            $0.minimumCount = min
            $0.maximumCount = max
        }
    }

    /// The relationship under the name it had in the previous model version.
    public func renamed(from previousName: String) -> Relationship {
        with { $0.renamingIdentifier = previousName }
    }

    private func with(_ change: (inout RelationshipDescription) -> Void) -> Relationship {
        var copy = self
        change(&copy.relationshipDescription)
        return copy
    }
}
