# Helpers shared by every folder: warnings per target (never global flags) and tests.

# rpsum_warnings(<target>): the project's warning set, on this target only.
function(rpsum_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
endfunction()

# rpsum_test(NAME <name> SOURCES <files...> LIBS <targets...> LABELS <labels...>
#            [TIMEOUT s] [DEFINES <defs...>] [OPTIONS <compile options...>])
# A GoogleTest executable registered with CTest under the given labels.
# Tests that read files of the source tree find it in $RPSUM_SOURCE_DIR (testing/source_dir.h),
# set at run time: a define holding the path would miss ccache in every other clone.
function(rpsum_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS;DEFINES;OPTIONS" ${ARGN})
  if(NOT RPSUM_BUILD_TESTS)
    return()
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  rpsum_warnings(${T_NAME})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gmock GTest::gtest_main)
  if(T_DEFINES)
    target_compile_definitions(${T_NAME} PRIVATE ${T_DEFINES})
  endif()
  if(T_OPTIONS)
    target_compile_options(${T_NAME} PRIVATE ${T_OPTIONS})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  # One CTest test per binary (not per case): a LibTorch process takes a second to start and
  # some fixtures (a trained tokenizer) are shared by the cases of a binary.
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} --gtest_brief=1 WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
                       ENVIRONMENT RPSUM_SOURCE_DIR=${PROJECT_SOURCE_DIR})
endfunction()
