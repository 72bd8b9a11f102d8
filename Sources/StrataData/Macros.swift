/// Makes a class a persistent model, as SwiftData's `@Model` does: every stored `var`
/// becomes an accessor over the object layer (reads fire faults; an external-storage
/// attribute loads its bytes only when read), the class conforms to
/// ``PersistentModel``, and its entity description comes from its properties' types.
///
/// ```swift
/// @Model final class Employee {
///     #Index<Employee>([\.salary])
///     @Attribute(.unique) var email: String
///     var name: String
///     var salary: Double = 0
///     @Attribute(.externalStorage) var photo: Data?
///     var department: Department?
///     @Transient var isSelected = false
///     init(name: String, email: String) { self.name = name; self.email = email }
/// }
/// ```
///
/// A persisted property needs a type annotation and must be a `var`; model classes
/// should be `final` (entity inheritance is not mapped from classes).
@attached(member, names: named(persistentBackingData), named(init(backingData:)), named(schemaMetadata), named(schemaConstraints), named(entityName))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel)
public macro Model() = #externalMacro(module: "StrataMacros", type: "ModelMacro")

/// Added by `@Model` to each persisted property; not written by hand.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty() = #externalMacro(module: "StrataMacros", type: "PersistedPropertyMacro")

/// Options for one attribute of a model, as SwiftData's `@Attribute`.
///
/// ```swift
/// @Attribute(.unique) var email: String
/// @Attribute(.externalStorage) var photo: Data?
/// @Attribute(originalName: "title") var name: String   // renamed since the last version
/// ```
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option...,
    originalName: String? = nil
) = #externalMacro(module: "StrataMacros", type: "AttributeMacro")

/// Options for one relationship of a model, as SwiftData's `@Relationship`.
///
/// ```swift
/// @Relationship(deleteRule: .cascade, inverse: \Employee.department)
/// var employees: [Employee] = []
/// ```
///
/// `minimumModelCount`/`maximumModelCount` of 0 mean no bound, as in SwiftData;
/// counts are checked at save.
@attached(peer)
public macro Relationship(
    deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0,
    originalName: String? = nil,
    inverse: AnyKeyPath? = nil
) = #externalMacro(module: "StrataMacros", type: "RelationshipMacro")

/// Keeps a property in memory only: never written, never read back.
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "TransientMacro")

/// Declares uniqueness constraints on a model, as SwiftData's `#Unique`: each array is
/// one constraint; a single key path makes that attribute unique, several make the
/// combination unique. A save that would break one throws `validationFailed`.
///
/// ```swift
/// #Unique<Department>([\.name])
/// #Unique<Person>([\.firstName, \.lastName])
/// ```
@freestanding(declaration)
public macro Unique<T>(_ constraints: [PartialKeyPath<T>]...) = #externalMacro(module: "StrataMacros", type: "UniqueMacro")

/// Declares indexes on a model, as SwiftData's `#Index`: each key path's attribute is
/// indexed, so the query planner can serve predicates on it.
///
/// ```swift
/// #Index<Employee>([\.salary], [\.name])
/// ```
@freestanding(declaration)
public macro Index<T>(_ indices: [PartialKeyPath<T>]...) = #externalMacro(module: "StrataMacros", type: "IndexMacro")

/// Makes an actor a model actor, as SwiftData's `@ModelActor`: it gets
/// `modelContainer`, `modelExecutor` (a thread of Strata's holding a new
/// ``ModelContext``), `init(modelContainer:)` and the ``ModelActor`` conformance, so its
/// methods run on that thread and use `modelContext` without blocking Swift's
/// cooperative pool.
///
/// ```swift
/// @ModelActor actor Importer {
///     func add(_ title: String) throws -> PersistentIdentifier {
///         let todo = Todo(title: title)
///         modelContext.insert(todo)
///         try modelContext.save()
///         return todo.persistentModelID
///     }
/// }
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "StrataMacros", type: "ModelActorMacro")
