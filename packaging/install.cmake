# The installed layout (README "Installing"): bin/corridor, the shipped rails in lib/corridor/rails,
# reference data in share/corridor, an example etc/corridor/corridor.json and a systemd unit. An
# installed binary finds its rails beside its own prefix (service_config's default_plugins_dir).
#
# Under the prefix /usr (the Debian package) the configuration goes to /etc/corridor and the state
# to /var/lib/corridor, as Debian's policy wants; under any other prefix P both stay inside P
# (P/etc/corridor, P/var/lib/corridor), so that a trial install never touches the system.
install(TARGETS corridor RUNTIME DESTINATION bin COMPONENT runtime)
install(FILES conf/currencies.json conf/uma-providers.json conf/rates.json conf/funding.json README.md
  DESTINATION share/corridor COMPONENT runtime)

install(CODE "set(corridor_source_dir \"${CMAKE_SOURCE_DIR}\")" COMPONENT runtime)
install(CODE [[
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(CORRIDOR_ETC_DIR "/etc/corridor")
    set(CORRIDOR_STATE_DIR "/var/lib/corridor")
  else()
    set(CORRIDOR_ETC_DIR "${CMAKE_INSTALL_PREFIX}/etc/corridor")
    set(CORRIDOR_STATE_DIR "${CMAKE_INSTALL_PREFIX}/var/lib/corridor")
  endif()
  set(CORRIDOR_BIN_DIR "${CMAKE_INSTALL_PREFIX}/bin")
  set(CORRIDOR_SHARE_DIR "${CMAKE_INSTALL_PREFIX}/share/corridor")
  set(unit_dir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
  set(etc_dir "$ENV{DESTDIR}${CORRIDOR_ETC_DIR}")
  # An operator's edited configuration is never overwritten by a reinstall.
  if(NOT EXISTS "${etc_dir}/corridor.json")
    message(STATUS "Installing: ${etc_dir}/corridor.json")
    configure_file("${corridor_source_dir}/packaging/corridor.json.in" "${etc_dir}/corridor.json" @ONLY)
  else()
    message(STATUS "Keeping: ${etc_dir}/corridor.json")
  endif()
  message(STATUS "Installing: ${unit_dir}/corridor.service")
  configure_file("${corridor_source_dir}/packaging/corridor.service.in" "${unit_dir}/corridor.service" @ONLY)
  file(MAKE_DIRECTORY "$ENV{DESTDIR}${CORRIDOR_STATE_DIR}")
  file(CHMOD "$ENV{DESTDIR}${CORRIDOR_STATE_DIR}" DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  file(CHMOD "${etc_dir}/corridor.json" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ)
]] COMPONENT runtime)

# The Debian package: `cpack -G DEB` in the build folder makes corridor_<version>_<arch>.deb (the
# service) and corridor-dev_<version>_<arch>.deb (the rail SDK), with their run-time dependencies
# read off the linked libraries by dpkg-shlibdeps.
set(CPACK_PACKAGE_NAME corridor)
set(CPACK_PACKAGE_VENDOR "Corridor")
set(CPACK_PACKAGE_CONTACT "Corridor maintainers <maintainers@corridor.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Cross-currency payments service with pluggable payment rails")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)  # with CPACK_SET_DESTDIR the install runs under this prefix
set(CPACK_SET_DESTDIR ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime sdk)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME corridor)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
  ${CMAKE_SOURCE_DIR}/packaging/debian/postinst ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
  ${CMAKE_SOURCE_DIR}/packaging/debian/postrm ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_SDK_PACKAGE_NAME corridor-dev)
set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS "g++ (>= 4:12), pkg-config, libsecp256k1-dev, libssl-dev")
set(CPACK_DEBIAN_SDK_DESCRIPTION "Corridor rail plugin SDK: headers, the Lightning formats library, pkg-config modules and CMake package")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "Corridor service: the corridor binary, the shipped rails and a systemd unit")
include(CPack)
