// Minimal template written for etsb's benchmark.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>

${headers}

${nativeFunctions_declarations}
