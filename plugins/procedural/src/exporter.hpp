#pragma once
/// @file exporter.hpp
/// The procedural layer's part of `kioku export` / `kioku import` (sdk/export.hpp).

#include "kioku/sdk/export.hpp"

namespace kioku::procedural {

/// Every procedural_* table through the SDK's table copier; free text screened on import.
sdk::ExporterSpec ProceduralExporter();

}  // namespace kioku::procedural
