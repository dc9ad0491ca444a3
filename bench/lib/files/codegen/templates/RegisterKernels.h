// Minimal template written for etsb's benchmark (${generated_comment}).
#pragma once
