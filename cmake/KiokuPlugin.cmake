# kioku_add_plugin(<layer> SOURCES <core sources...> ENTRY <entry.cpp> [TESTS <test sources...>])
#
# Builds the same sources twice over (DuckDB extension pattern):
#   <layer>_core      static PIC library, linked by unit tests (no dlopen)
#   kioku-<layer>     loadable MODULE with the KIOKU_PLUGIN entry point, placed in
#                     lib/kioku/plugins of the build tree and installed there too.
#   <layer>_test      GoogleTest executable over <layer>_core (when TESTS given).
function(kioku_add_plugin layer)
  cmake_parse_arguments(ARG "" "ENTRY" "SOURCES;TESTS;TEST_LIBS" ${ARGN})
  set(core ${layer}_core)
  add_library(${core} STATIC ${ARG_SOURCES})
  target_include_directories(${core} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${core} PUBLIC kioku::sdk PRIVATE kioku::warnings)

  set(module kioku-${layer})
  add_library(${module} MODULE ${ARG_ENTRY})
  set_target_properties(${module} PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${KIOKU_PLUGIN_OUTPUT_DIR})
  target_link_libraries(${module} PRIVATE ${core} kioku::warnings)
  target_link_options(${module} PRIVATE -Wl,--no-undefined)
  install(TARGETS ${module} LIBRARY DESTINATION ${KIOKU_PLUGIN_INSTALL_DIR})

  if(KIOKU_BUILD_TESTS AND ARG_TESTS)
    add_executable(${layer}_test ${ARG_TESTS})
    target_link_libraries(${layer}_test PRIVATE ${core} kioku::host_testing ${ARG_TEST_LIBS}
      GTest::gtest GTest::gmock GTest::gtest_main kioku::warnings)
    gtest_discover_tests(${layer}_test DISCOVERY_TIMEOUT 60 PROPERTIES LABELS unit)
  endif()
endfunction()
