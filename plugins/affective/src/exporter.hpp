#pragma once
/// @file exporter.hpp
/// The affective layer's part of `kioku export` / `kioku import` (sdk/export.hpp).

#include "kioku/sdk/export.hpp"

namespace kioku::affective {

/// Every affective_* table through the SDK's table copier; free text screened on import;
/// day buckets and totals merged on import by the rule of store.hpp (BeginImportBaseline),
/// forward-decay sums under `half_life_ms` (the configured half_life_days).
sdk::ExporterSpec AffectiveExporter(double half_life_ms);

}  // namespace kioku::affective
