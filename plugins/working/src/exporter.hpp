#pragma once
/// @file exporter.hpp
/// The working layer's part of `kioku export` / `kioku import` (sdk/export.hpp).

#include "kioku/sdk/export.hpp"

namespace kioku::working {

/// Every working_* table through the SDK's table copier; free text screened on import.
sdk::ExporterSpec WorkingExporter();

}  // namespace kioku::working
