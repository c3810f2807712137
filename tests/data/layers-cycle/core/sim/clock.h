#pragma once
// Forbidden: sim builds on base only, and scenario builds on sim.
#include "core/base/error.h"
#include "core/scenario/spec.h"
