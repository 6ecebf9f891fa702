#pragma once
/// @file exporter.hpp
/// The semantic layer's part of `kioku export` / `kioku import` (sdk/export.hpp).

#include "kioku/sdk/export.hpp"

namespace kioku::semantic {

/// Every semantic_* table through the SDK's table copier; free text screened on import.
sdk::ExporterSpec SemanticExporter();

}  // namespace kioku::semantic
