#pragma once
// Allowed: the lowest layer includes only the standard library.
#include <string>
