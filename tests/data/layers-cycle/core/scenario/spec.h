#pragma once
// Allowed: scenario builds on sim.
#include "core/sim/clock.h"
