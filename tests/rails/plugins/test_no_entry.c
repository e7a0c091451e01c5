/* A shared object that is not a rail plugin: it exports no corridor_rail_entry. */
#include "rails/rail_abi.h"

CORRIDOR_RAIL_EXPORT int32_t some_other_entry(void) { return 0; }
