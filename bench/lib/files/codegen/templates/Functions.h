// Minimal template written for etsb's benchmark.
#pragma once

${static_dispatch_extra_headers}

${Functions_declarations}
