# Installs libhetccl, its public header, a CMake package (find_package(hetccl) -> target
# hetccl::hetccl) and a pkg-config file (pkg-config --cflags --libs hetccl).
include(CMakePackageConfigHelpers)

install(TARGETS hetccl EXPORT hetcclTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/hetccl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(HETCCL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hetccl)
install(EXPORT hetcclTargets NAMESPACE hetccl:: DESTINATION ${HETCCL_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hetcclConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hetcclConfig.cmake INSTALL_DESTINATION ${HETCCL_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hetcclConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hetcclConfig.cmake ${PROJECT_BINARY_DIR}/hetcclConfigVersion.cmake
  DESTINATION ${HETCCL_CMAKE_DIR})

# The .pc file finds its prefix relative to itself, so an installed tree can be moved.
file(RELATIVE_PATH HETCCL_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/hetccl.pc.in ${PROJECT_BINARY_DIR}/hetccl.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hetccl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
