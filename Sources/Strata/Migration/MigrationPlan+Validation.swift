extension MigrationPlan {
    /// Checks that the plan holds together: at least one model; no two models with the
    /// same version hash (a store could not tell which it is); stage `i` goes from
    /// model `i` to model `i + 1`, so that the stages chain and every listed version
    /// has a way on; every stage's mapping can be inferred or names the right hashes.
    ///
    /// - Throws: `StrataError` listing every problem (context `problems`, one per
    ///   line): `migrationInferenceRefused` when every problem is a lightweight stage
    ///   that cannot be inferred (with the context ``MappingModel/inferred(from:to:)``
    ///   gives: `entity`, `property`, `reason`, both hashes; and `stage`), else
    ///   `migrationFailed`.
    public func validate() throws {
        let problems = validationProblems()
        guard problems.isEmpty else { throw MigrationPlanProblem.planError(problems) }
    }

    func validationProblems() -> [MigrationPlanProblem] {
        guard !models.isEmpty else { return [MigrationPlanProblem("the plan lists no model")] }
        var problems: [MigrationPlanProblem] = []
        var firstWithHash: [String: ObjectModel] = [:]
        for model in models {
            if let earlier = firstWithHash[model.versionHash] {
                problems.append(MigrationPlanProblem(
                    "models '\(earlier.versionIdentifier)' and '\(model.versionIdentifier)' have the same "
                    + "version hash \(model.versionHash), so a store cannot tell which it was written by"))
            } else {
                firstWithHash[model.versionHash] = model
            }
        }
        if !problems.isEmpty { return problems }
        let index = Dictionary(uniqueKeysWithValues: models.enumerated().map { ($1.versionHash, $0) })
        var covered = Array(repeating: 0, count: max(models.count - 1, 0))
        var previousStart = -1
        for stage in stages {
            guard let start = index[stage.source.versionHash] else {
                problems.append(MigrationPlanProblem(
                    "stage \(stage.label): its source model (hash \(stage.source.versionHash)) is not listed"))
                continue
            }
            guard let end = index[stage.destination.versionHash] else {
                problems.append(MigrationPlanProblem(
                    "stage \(stage.label): its destination model (hash \(stage.destination.versionHash)) is not listed"))
                continue
            }
            guard end == start + 1 else {
                problems.append(MigrationPlanProblem(
                    "stage \(stage.label) does not go from a listed version to the next one"))
                continue
            }
            if start < previousStart {
                problems.append(MigrationPlanProblem("stage \(stage.label) is listed out of order"))
            }
            previousStart = start
            covered[start] += 1
            problems += mappingProblems(of: stage)
        }
        for (position, count) in covered.enumerated() where count != 1 {
            let label = "'\(models[position].versionIdentifier)' → '\(models[position + 1].versionIdentifier)'"
            problems.append(MigrationPlanProblem(
                count == 0 ? "no stage goes from \(label)" : "\(count) stages go from \(label)"))
        }
        return problems
    }

    /// Why a stage's mapping cannot run: the inferred mapping's problems, or an own
    /// mapping naming other models.
    private func mappingProblems(of stage: MigrationStage) -> [MigrationPlanProblem] {
        if let mapping = stage.mapping {
            return stage.mappingHashProblem(mapping).map { [$0] } ?? []
        }
        return MappingModel.inferenceProblems(from: stage.source, to: stage.destination).map {
            MigrationPlanProblem($0, in: stage)
        }
    }
}
