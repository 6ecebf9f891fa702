#pragma once
/// @file exporter.hpp
/// The episodic layer's part of `kioku export` / `kioku import` (sdk/export.hpp).

#include "kioku/sdk/export.hpp"

namespace kioku::episodic {

/// Every episodic_* table through the SDK's table copier; free text screened on import.
sdk::ExporterSpec EpisodicExporter();

}  // namespace kioku::episodic
