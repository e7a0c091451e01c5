# Install rules of the rail plugin SDK (install COMPONENT sdk): what a plugin author outside this
# repository builds against.
#   include/corridor/rail_abi.h          the C contract (rails/rail_abi.h)
#   include/corridor/rail_sdk.hpp        the C++ SDK, the one header a plugin includes
#                                        (rails/plugin_sdk.hpp; it includes the two entries below
#                                        by paths relative to itself, so they resolve in the tree
#                                        and once installed)
#   include/corridor/rail_sdk/*.hpp      SDK helpers: settings, durable files, clock
#   include/corridor/rail_sdk/formats/   wire-format results and ASCII utilities
#   include/corridor/rail_sdk/lightning/ bech32 and BOLT #11, with lib/libcorridor_lightning.a
#   share/pkgconfig/corridor-rail-sdk.pc
#   share/cmake/CorridorRailSdk/         the CMake package and corridor_add_rail_plugin
# Everything but the Lightning library is header-only; the .pc files and the CMake package live
# under share/ and find the prefix from their own location, so `cmake --install --prefix P` works
# for any P.
include(CMakePackageConfigHelpers)
# The ABI version the .pc describes, read from the header so the two never disagree.
file(STRINGS ${CMAKE_SOURCE_DIR}/rails/rail_abi.h CORRIDOR_RAIL_ABI_LINES
  REGEX "^#define CORRIDOR_RAIL_ABI_(MAJOR|MINOR) [0-9]+$")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" CORRIDOR_RAIL_ABI_MAJOR_NUMBER "${CORRIDOR_RAIL_ABI_LINES}")
string(REGEX REPLACE ".*MINOR ([0-9]+).*" "\\1" CORRIDOR_RAIL_ABI_MINOR_NUMBER "${CORRIDOR_RAIL_ABI_LINES}")
set(CORRIDOR_RAIL_ABI_VERSION ${CORRIDOR_RAIL_ABI_MAJOR_NUMBER}.${CORRIDOR_RAIL_ABI_MINOR_NUMBER})
set(CORRIDOR_RAIL_SDK_CMAKE_DIR share/cmake/CorridorRailSdk)

install(FILES ${CMAKE_SOURCE_DIR}/rails/rail_abi.h DESTINATION include/corridor COMPONENT sdk)
install(FILES ${CMAKE_SOURCE_DIR}/rails/plugin_sdk.hpp DESTINATION include/corridor
  RENAME rail_sdk.hpp COMPONENT sdk)
file(GLOB CORRIDOR_RAIL_SDK_HELPERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/rails/rail_sdk/*.hpp)
install(FILES ${CORRIDOR_RAIL_SDK_HELPERS} DESTINATION include/corridor/rail_sdk COMPONENT sdk)
foreach(part formats lightning)
  file(GLOB CORRIDOR_RAIL_SDK_PART_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/rails/rail_sdk/${part}/*.hpp)
  install(FILES ${CORRIDOR_RAIL_SDK_PART_HEADERS} DESTINATION include/corridor/rail_sdk/${part} COMPONENT sdk)
endforeach()
install(TARGETS corridor_lightning ARCHIVE DESTINATION lib COMPONENT sdk)

configure_file(${CMAKE_SOURCE_DIR}/rails/sdk/corridor-rail-sdk.pc.in
  ${CMAKE_BINARY_DIR}/sdk/corridor-rail-sdk.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/rails/sdk/corridor-lightning.pc.in
  ${CMAKE_BINARY_DIR}/sdk/corridor-lightning.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/sdk/corridor-rail-sdk.pc ${CMAKE_BINARY_DIR}/sdk/corridor-lightning.pc
  DESTINATION share/pkgconfig COMPONENT sdk)

write_basic_package_version_file(${CMAKE_BINARY_DIR}/sdk/CorridorRailSdkConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES
  ${CMAKE_SOURCE_DIR}/rails/sdk/CorridorRailSdkConfig.cmake
  ${CMAKE_BINARY_DIR}/sdk/CorridorRailSdkConfigVersion.cmake
  ${CMAKE_SOURCE_DIR}/rails/corridor_rail_exports.map
  DESTINATION ${CORRIDOR_RAIL_SDK_CMAKE_DIR} COMPONENT sdk)
install(FILES ${CMAKE_SOURCE_DIR}/rails/rail_plugin.cmake DESTINATION ${CORRIDOR_RAIL_SDK_CMAKE_DIR}
  RENAME CorridorRailPlugin.cmake COMPONENT sdk)
