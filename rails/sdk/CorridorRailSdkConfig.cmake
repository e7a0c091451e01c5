# CMake package of the Corridor rail plugin SDK, installed under <prefix>/share/cmake/CorridorRailSdk.
#
#   find_package(CorridorRailSdk REQUIRED)
#   corridor_add_rail_plugin(my_rail SOURCES my_rail.cpp)   # builds my_rail.so
#
# CorridorRailSdk::rail_sdk is the header-only SDK (<corridor/rail_sdk.hpp>, C++20).
# CorridorRailSdk::lightning adds bech32 and BOLT #11 (<corridor/rail_sdk/lightning/bolt11.hpp>):
#   target_link_libraries(my_rail PRIVATE CorridorRailSdk::lightning)
get_filename_component(_corridor_rail_sdk_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET CorridorRailSdk::rail_sdk)
  add_library(CorridorRailSdk::rail_sdk INTERFACE IMPORTED)
  set_target_properties(CorridorRailSdk::rail_sdk PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_corridor_rail_sdk_prefix}/include"
    INTERFACE_COMPILE_FEATURES cxx_std_20)
endif()
if(NOT TARGET CorridorRailSdk::lightning)
  include(CMakeFindDependencyMacro)
  find_dependency(OpenSSL)
  find_library(CORRIDOR_SECP256K1_LIBRARY secp256k1 REQUIRED)
  add_library(CorridorRailSdk::lightning STATIC IMPORTED)
  set_target_properties(CorridorRailSdk::lightning PROPERTIES
    IMPORTED_LOCATION "${_corridor_rail_sdk_prefix}/lib/libcorridor_lightning.a"
    INTERFACE_LINK_LIBRARIES "CorridorRailSdk::rail_sdk;OpenSSL::Crypto;${CORRIDOR_SECP256K1_LIBRARY}")
endif()
unset(_corridor_rail_sdk_prefix)
set(CORRIDOR_RAIL_SDK_TARGET CorridorRailSdk::rail_sdk)
include(${CMAKE_CURRENT_LIST_DIR}/CorridorRailPlugin.cmake)
