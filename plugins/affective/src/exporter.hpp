#pragma once
/// @file exporter.hpp
/// The affective layer's part of `kioku export` / `kioku import` (sdk/export.hpp).

#include "kioku/sdk/export.hpp"

namespace kioku::affective {

/// Every affective_* table through the SDK's table copier; free text screened on import.
sdk::ExporterSpec AffectiveExporter();

}  // namespace kioku::affective
